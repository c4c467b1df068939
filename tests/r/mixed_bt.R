# Reference numbers for tests/test_comparative_mixed.py: the mixed-effects Bradley–Terry model
# fitted by ordinal::clmm on the ±1 design in tests/data/mixed_bt_design.csv (216 comparisons of
# 4 systems by 12 annotators, simulated with annotator SD 1.0; written by humaneval's mixed_spec).
# y = 1 when the first-listed system won; x1..x3 = +1/−1 columns of systems s1..s3 (s0 the
# reference); z0..z3 = the ±1 entries of all four systems, random slopes by annotator with a
# diagonal covariance. Run: Rscript tests/r/mixed_bt.R
library(ordinal)
d <- read.csv("tests/data/mixed_bt_design.csv")
d$y <- factor(d$y, levels = c(0, 1))
d$annotator <- factor(d$annotator)
fit <- clmm(y ~ x0 + x1 + x2 + (0 + z0 | annotator) + (0 + z1 | annotator) +
              (0 + z2 | annotator) + (0 + z3 | annotator), data = d)
print(summary(fit))
cat(sprintf("logLik %.6f\n", as.numeric(logLik(fit))))
cat("beta", sprintf("%.6f", coef(fit)[c("x0", "x1", "x2")]), "\n")
cat("se", sprintf("%.6f", sqrt(diag(vcov(fit)))[c("x0", "x1", "x2")]), "\n")
cat("theta", sprintf("%.6f", coef(fit)[1]), "\n")
cat("sd", sprintf("%.6f", sapply(VarCorr(fit), function(v) sqrt(v[1]))), "\n")
