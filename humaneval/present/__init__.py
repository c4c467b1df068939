"""Presentation helpers below the report: number formatting and plotting."""
