# Reference fit of a numeric covariate for tests/test_covariate.py (issue 29): the Likert coherence data of
# Steen & Markert (2021) with each annotator's log working time in minutes, centred over annotators.
# Run from the repository root:
#   Rscript tests/r/covariate.R [path/to/steen2021]
# Writes tests/data/covariate_reference.json.
suppressPackageStartupMessages({library(ordinal); library(jsonlite)})
args <- commandArgs(trailingOnly = TRUE)
root <- if (length(args)) args[[1]] else "../shared/data/steen2021"
ratings <- read.csv(file.path(root, "likert_coherence_cnn_dm.csv"))
times <- read.csv(file.path(root, "times", "likert_coherence_cnn_dm.csv"))
minutes <- tapply(times$time_stamp, times$annotator, sum) / 60
log_minutes <- log(minutes)
covariate <- data.frame(annotator = as.integer(names(log_minutes)),
                        log_minutes_c = as.numeric(log_minutes - mean(log_minutes)))
data <- merge(ratings, covariate, by = "annotator")
data$score <- factor(data$score, ordered = TRUE)
data$annotator <- factor(data$annotator)
data$document <- factor(data$document)
data$system <- factor(data$system)
formula <- "score ~ system + log_minutes_c + (1|annotator) + (1|document)"
m <- clmm(as.formula(formula), data = data, link = "logit")
out <- list(
  formula = formula,
  nobs = nrow(data),
  n_annotators = nlevels(data$annotator),
  loglik = as.numeric(logLik(m)),
  beta = as.list(m$beta),
  se = as.list(sqrt(diag(vcov(m)))[names(m$beta)]),
  alpha = as.list(m$alpha),
  covariate = as.list(setNames(covariate$log_minutes_c, covariate$annotator)),
  versions = list(R = paste(R.version$major, R.version$minor, sep = "."),
                  ordinal = as.character(packageVersion("ordinal")))
)
write(toJSON(out, auto_unbox = TRUE, digits = NA, pretty = TRUE), "tests/data/covariate_reference.json")
