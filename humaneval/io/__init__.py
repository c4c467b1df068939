"""Reading and writing files: tables, serialization, the study database, bundled data sets."""
