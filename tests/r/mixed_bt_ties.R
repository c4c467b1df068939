# Reference numbers for tests/test_comparative_mixed.py: the mixed-effects Bradley–Terry model with
# ties (three ordered categories lost < tie < won) fitted by ordinal::clmm on the ±1 design in
# tests/data/mixed_bt_ties_design.csv (135 comparisons of 3 systems by 15 annotators, simulated
# with annotator SD 1.0 and Davidson ties ν = 0.6; written by humaneval's mixed_spec).
# y = 0 lost, 1 tie, 2 won for the first-listed system; x0, x1 = ±1 columns of s1, s2 (s0 the
# reference); z0..z2 = ±1 entries of all systems, random slopes by annotator, diagonal covariance.
# Run: Rscript tests/r/mixed_bt_ties.R
library(ordinal)
d <- read.csv("tests/data/mixed_bt_ties_design.csv")
d$y <- factor(d$y, levels = c(0, 1, 2), ordered = TRUE)
d$annotator <- factor(d$annotator)
fit <- clmm(y ~ x0 + x1 + (0 + z0 | annotator) + (0 + z1 | annotator) + (0 + z2 | annotator), data = d)
print(summary(fit))
cat(sprintf("logLik %.6f\n", as.numeric(logLik(fit))))
cat("beta", sprintf("%.6f", coef(fit)[c("x0", "x1")]), "\n")
cat("se", sprintf("%.6f", sqrt(diag(vcov(fit)))[c("x0", "x1")]), "\n")
cat("theta", sprintf("%.6f", coef(fit)[1:2]), "\n")
cat("sd", sprintf("%.6f", sapply(VarCorr(fit), function(v) sqrt(v[1]))), "\n")
