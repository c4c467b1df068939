# Reference EMMs under a CLM with scale effects for tests/test_clmm_scale_emmeans.py (issue 43):
# emmeans on ordinal::clm(rating ~ temp + contact, scale = ~judge) (the wine data, Randall 1989, as bundled
# with ordinal) in the latent, mean.class and prob modes, pairs() of the latent EMMs, and the logLik without
# the scale term (for the LR test of scale use). Seconds to run.
# Run from the repository root:
#   Rscript tests/r/scale_emmeans.R
# Writes tests/data/scale_emmeans_reference.json.
suppressPackageStartupMessages({library(ordinal); library(emmeans)})
to_json <- function(x) {
  if (is.list(x) && !is.null(names(x))) {
    keys <- names(x)
    body <- vapply(seq_along(x), function(i) paste0('"', keys[[i]], '": ', to_json(x[[i]])), "")
    return(paste0("{", paste(body, collapse = ", "), "}"))
  }
  if (is.list(x)) return(paste0("[", paste(vapply(x, to_json, ""), collapse = ", "), "]"))
  if (is.character(x)) return(if (length(x) == 1) paste0('"', x, '"') else to_json(as.list(x)))
  if (length(x) == 1) return(formatC(x, digits = 15, format = "g"))
  paste0("[", paste(formatC(x, digits = 15, format = "g"), collapse = ", "), "]")
}
frame <- function(e, value) {
  d <- as.data.frame(e)
  list(level = as.character(d[[1]]), emmean = d[[value]], se = d$SE)
}
data(wine, package = "ordinal")
m <- clm(rating ~ temp + contact, scale = ~judge, data = wine)
pr <- as.data.frame(emmeans(m, ~ rating | temp, mode = "prob"))
pairs_latent <- as.data.frame(pairs(emmeans(m, ~temp, mode = "latent")))
out <- list(
  model = "clm(rating ~ temp + contact, scale = ~judge, data = wine)",
  loglik = as.numeric(logLik(m)),
  loglik_no_scale = as.numeric(logLik(clm(rating ~ temp + contact, data = wine))),
  latent = frame(emmeans(m, ~temp, mode = "latent"), "emmean"),
  mean_class = frame(emmeans(m, ~temp, mode = "mean.class"), "mean.class"),
  prob = list(temp = as.character(pr$temp), rating = as.character(pr$rating), prob = pr$prob, se = pr$SE),
  pairs_latent = list(estimate = pairs_latent$estimate, se = pairs_latent$SE),
  versions = list(R = paste(R.version$major, R.version$minor, sep = "."),
                  ordinal = as.character(packageVersion("ordinal")),
                  emmeans = as.character(packageVersion("emmeans")))
)
writeLines(to_json(out), "tests/data/scale_emmeans_reference.json")
