# Reference fits of ordinal::clmm for tests/test_clmm_formula.py (issue 16).
# Run from the repository root:  Rscript tests/r/clmm_formulas.R [path/to/likert_coherence_cnn_dm.csv]
# Writes tests/data/wine.csv, tests/data/soup.csv and tests/data/clmm_formulas_reference.json.
suppressPackageStartupMessages({library(ordinal); library(emmeans); library(jsonlite)})
data(wine); data(soup)
write.csv(wine[, c("response", "rating", "temp", "contact", "bottle", "judge")], "tests/data/wine.csv",
          row.names = FALSE)
write.csv(soup[, c("RESP", "PROD", "PRODID", "SURENESS", "DAY", "SOUPTYPE", "GENDER")], "tests/data/soup.csv",
          row.names = FALSE)

summarise <- function(m) {
  vc <- VarCorr(m)
  list(
    loglik = as.numeric(logLik(m)),
    aic = AIC(m),
    beta = as.list(m$beta),
    se = tryCatch(as.list(sqrt(diag(vcov(m)))[names(m$beta)]), error = function(e) NULL),
    alpha = as.list(m$alpha),
    varcorr = lapply(vc, function(v) unname(as.matrix(v))),
    varcorr_names = names(vc),
    varcorr_terms = lapply(vc, rownames)
  )
}
fits <- list()
add <- function(name, formula, data, ...) {
  t0 <- proc.time()[["elapsed"]]
  m <- clmm(as.formula(formula), data = data, ...)
  s <- summarise(m)
  s$formula <- formula
  s$seconds <- proc.time()[["elapsed"]] - t0
  s$options <- list(...)
  fits[[name]] <<- s
  invisible(m)
}
wine$tempwarm <- as.numeric(wine$temp == "warm")
m1 <- add("wine_additive", "rating ~ temp + contact + (1|judge)", wine)
add("wine_interaction", "rating ~ temp * contact + (1|judge)", wine)
add("wine_slope", "rating ~ temp + contact + (1 + temp|judge)", wine)
add("wine_uncorrelated", "rating ~ temp + contact + (1|judge) + (0 + tempwarm|judge)", wine)
add("wine_crossed", "rating ~ temp + contact + (1|judge) + (1|bottle)", wine)
add("wine_three", "rating ~ temp + contact + (1|judge) + (1|bottle) + (1|judge:temp)", wine)
for (link in c("probit", "cloglog", "loglog", "cauchit")) {
  add(paste0("wine_", link), "rating ~ temp + contact + (1|judge)", wine, link = link)
}
add("wine_equidistant", "rating ~ temp + contact + (1|judge)", wine, threshold = "equidistant")
add("wine_symmetric", "rating ~ temp + contact + (1|judge)", wine, threshold = "symmetric")
wine$contact2 <- relevel(wine$contact, "yes")
add("wine_reference", "rating ~ temp + contact2 + (1|judge)", wine)
add("soup_nested", "SURENESS ~ PROD + (1|RESP) + (1|RESP:PROD)", soup)
add("soup_slash", "SURENESS ~ PROD + DAY + (1|RESP/PROD)", soup)
add("wine_null", "rating ~ contact + (1|judge)", wine)
wine$b <- as.numeric(as.character(wine$bottle)) / 4  # a continuous random slope
add("wine_no_fixed", "rating ~ 1 + (1|judge)", wine)
add("wine_slopes_only", "rating ~ temp + (0 + temp|judge)", wine)
add("wine_continuous_slope", "rating ~ temp + contact + b + (1 + b|judge)", wine)

# emmeans of the interaction model: latent and mean.class
mi <- clmm(rating ~ temp * contact + (1|judge), data = wine)
em <- emmeans(mi, ~ temp | contact)
lat <- as.data.frame(summary(em))
mc <- as.data.frame(summary(emmeans(mi, ~ temp | contact, mode = "mean.class")))
ma <- as.data.frame(summary(emmeans(m1, ~ temp, mode = "mean.class")))
pr <- as.data.frame(summary(pairs(emmeans(m1, ~ temp), adjust = "none"), infer = c(TRUE, TRUE)))
anova_lr <- anova(clmm(rating ~ contact + (1|judge), data = wine), m1)
emm <- list(
  latent = lat, mean_class = mc, mean_class_additive = ma, pairs_temp = pr,
  lr = list(statistic = anova_lr$LR.stat[2], df = anova_lr$df[2], p = anova_lr[["Pr(>Chisq)"]][2])
)

args <- commandArgs(trailingOnly = TRUE)
if (length(args) >= 1) {
  lk <- read.csv(args[1], stringsAsFactors = FALSE)
  lk$position <- ave(seq_len(nrow(lk)), lk$annotator, FUN = seq_along)
  lk$position <- (lk$position - 1) / 10
  lk$score <- factor(lk$score, ordered = TRUE)
  lk$annotator <- factor(lk$annotator)
  lk$document <- factor(lk$document)
  lk$system <- relevel(factor(lk$system), "BART")
  add("likert_position", "score ~ system + position + (1|annotator) + (1|document)", lk)
}
write(toJSON(list(fits = fits, emmeans = emm), digits = 10, auto_unbox = TRUE, pretty = TRUE),
      "tests/data/clmm_formulas_reference.json")
cat("done\n")
