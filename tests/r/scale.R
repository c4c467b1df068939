# Reference fits of cumulative link models with scale effects for tests/test_clmm_scale.py (issue 43):
# clm(..., scale = ~judge/annotator) without random effects and clmm2(..., scale = , random = ) (Laplace)
# on the wine data (Randall 1989, as bundled with ordinal) and on the Likert coherence data of
# Steen & Markert (2021). The Steen clmm2 fit takes ~100 CPU-s; the suite only reads the stored numbers.
# Run from the repository root:
#   Rscript tests/r/scale.R [path/to/steen2021]
# Writes tests/data/scale_reference.json.
suppressPackageStartupMessages(library(ordinal))
# a minimal JSON writer (jsonlite is not needed): named lists → objects, vectors → numbers/arrays
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
args <- commandArgs(trailingOnly = TRUE)
root <- if (length(args)) args[[1]] else "../shared/data/steen2021"
data(wine, package = "ordinal")
steen <- read.csv(file.path(root, "likert_coherence_cnn_dm.csv"))
steen$score <- factor(steen$score, ordered = TRUE)
steen$annotator <- factor(steen$annotator)
steen$document <- factor(steen$document)
steen$system <- factor(steen$system)

summarise_clm <- function(m, formula, scale) {
  list(formula = formula, scale = scale, loglik = as.numeric(logLik(m)), nobs = nrow(m$model),
       alpha = as.list(m$alpha), beta = as.list(m$beta), zeta = as.list(m$zeta),
       se = as.list(sqrt(diag(vcov(m)))))
}
summarise_clmm2 <- function(m, formula, scale, random, seconds) {
  se <- sqrt(diag(vcov(m)))
  list(formula = formula, scale = scale, random = random, loglik = as.numeric(m$logLik),
       alpha = as.list(m$Alpha), beta = as.list(m$beta), zeta = as.list(m$zeta),
       stdev = as.numeric(m$stDev), se = as.list(se), seconds = seconds)
}
out <- list()
m <- clm(rating ~ temp + contact, scale = ~judge, data = wine)
out$wine_clm <- summarise_clm(m, "rating ~ temp + contact", "~ judge")
m0 <- clm(score ~ system + annotator, data = steen)
m1 <- clm(score ~ system + annotator, scale = ~annotator, data = steen)
out$steen_clm <- summarise_clm(m1, "score ~ system + annotator", "~ annotator")
out$steen_clm$loglik_no_scale <- as.numeric(logLik(m0))
m <- clm(score ~ system, scale = ~annotator, data = steen)
out$steen_clm_system <- summarise_clm(m, "score ~ system", "~ annotator")
t0 <- proc.time()[["elapsed"]]
m <- clmm2(rating ~ temp + contact, scale = ~judge, random = judge, data = wine, Hess = TRUE)
out$wine_clmm2 <- summarise_clmm2(m, "rating ~ temp + contact", "~ judge", "judge",
                                  proc.time()[["elapsed"]] - t0)
t0 <- proc.time()[["elapsed"]]
m <- clmm2(score ~ system, scale = ~annotator, random = document, data = steen, Hess = TRUE)
out$steen_clmm2 <- summarise_clmm2(m, "score ~ system", "~ annotator", "document",
                                   proc.time()[["elapsed"]] - t0)
out$versions <- list(R = paste(R.version$major, R.version$minor, sep = "."),
                     ordinal = as.character(packageVersion("ordinal")))
writeLines(to_json(out), "tests/data/scale_reference.json")
