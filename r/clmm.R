# CLMM fits for humaneval (estimation, diagnostics and the R bridge: docs/analysis.md, "Method notes").
# Sourced once into the embedded R of humaneval/analysis/rbridge.py. Data arrive as plain integer
# code vectors; the ordered response factor and the system factor are built here with explicit
# levels, so neither pandas conversion nor R's locale-dependent sort is involved.

suppressPackageStartupMessages({
  library(ordinal)
  library(emmeans)
})

.humaneval <- new.env()

humaneval_frame <- function(y, n_levels, system, systems, annotator, document) {
  d <- data.frame(
    y = factor(y, levels = seq_len(n_levels) - 1L, ordered = TRUE),
    system = factor(systems[system + 1L], levels = systems),
    annotator = factor(annotator),
    document = factor(document)
  )
  # numeric 0/1 dummies d1, d2, ... for the uncorrelated-slopes structure
  for (i in seq_len(length(systems) - 1L)) {
    d[[paste0("d", i)]] <- as.numeric(system == i)
  }
  d
}

humaneval_random_effects <- function(m) {
  vc <- VarCorr(m)
  rows <- list()
  for (k in seq_along(vc)) {
    v <- vc[[k]]
    terms <- rownames(v)
    grid <- expand.grid(a = seq_along(terms), b = seq_along(terms))
    rows[[k]] <- data.frame(
      factor = names(vc)[k],
      term_a = terms[grid$a],
      term_b = terms[grid$b],
      value = as.vector(v[cbind(grid$a, grid$b)]),
      stringsAsFactors = FALSE
    )
  }
  if (length(rows) == 0L) {
    return(data.frame(factor = character(), term_a = character(), term_b = character(), value = numeric()))
  }
  do.call(rbind, rows)
}

humaneval_fit <- function(y, n_levels, system, systems, annotator, document, formula, link) {
  d <- humaneval_frame(y, n_levels, system, systems, annotator, document)
  caught <- character()
  start <- proc.time()[["elapsed"]]
  m <- tryCatch(
    withCallingHandlers(
      clmm(as.formula(formula), data = d, link = link, threshold = "flexible", Hess = TRUE),
      warning = function(w) {
        caught <<- c(caught, conditionMessage(w))
        invokeRestart("muffleWarning")
      }
    ),
    error = function(e) e
  )
  seconds <- proc.time()[["elapsed"]] - start
  if (inherits(m, "error")) {
    return(list(error = conditionMessage(m), seconds = seconds, warnings = caught))
  }
  assign("model", m, envir = .humaneval)
  humaneval_result(m, names(m$beta), caught, seconds)
}

# Any clmm formula on a data frame built from plain vectors: `columns` is a named list of numeric or
# character vectors, `levels` a named list giving the level order of each factor column (the first is
# the reference of the treatment contrasts), `response_levels` the order of the ordered response.
humaneval_fit_formula <- function(columns, levels, response, response_levels, formula, link, threshold) {
  d <- as.data.frame(columns, stringsAsFactors = FALSE, optional = TRUE)
  for (name in names(levels)) {
    d[[name]] <- factor(as.character(d[[name]]), levels = levels[[name]])
  }
  d[[response]] <- factor(as.character(d[[response]]), levels = response_levels, ordered = TRUE)
  caught <- character()
  start <- proc.time()[["elapsed"]]
  m <- tryCatch(
    withCallingHandlers(
      clmm(as.formula(formula), data = d, link = link, threshold = threshold, Hess = TRUE),
      warning = function(w) {
        caught <<- c(caught, conditionMessage(w))
        invokeRestart("muffleWarning")
      }
    ),
    error = function(e) e
  )
  seconds <- proc.time()[["elapsed"]] - start
  if (inherits(m, "error")) {
    return(list(error = conditionMessage(m), seconds = seconds, warnings = caught))
  }
  assign("model", m, envir = .humaneval)
  humaneval_result(m, c(names(m$alpha), names(m$beta)), caught, seconds)
}

# emmeans pairwise contrasts of the most recent fit (used to cross-check the Python contrasts).
humaneval_emmeans_pairs <- function(adjust) {
  emm <- emmeans(get("model", envir = .humaneval), "system")
  as.data.frame(pairs(emm, adjust = adjust, infer = c(TRUE, TRUE)))
}

humaneval_versions <- function() {
  c(
    R = paste(R.version$major, R.version$minor, sep = "."),
    ordinal = as.character(packageVersion("ordinal")),
    emmeans = as.character(packageVersion("emmeans"))
  )
}

# The estimates and convergence facts of a fitted clmm `m`; `keep` names the parameters of vcov.
humaneval_result <- function(m, keep, caught, seconds) {
  vc <- tryCatch(vcov(m)[keep, keep, drop = FALSE], error = function(e) NULL)
  if (is.null(vc)) {
    vc <- matrix(NA_real_, length(keep), length(keep))
    caught <- c(caught, "vcov(model) is not defined (singular Hessian)")
  }
  cond_h <- if (any(is.na(m$Hessian))) Inf else {
    ev <- eigen(m$Hessian, only.values = TRUE)$values
    abs(max(ev) / min(ev))
  }
  list(
    alpha = unname(m$alpha),
    beta = unname(m$beta),
    beta_names = names(m$beta),
    vcov = unname(vc),
    random_effects = humaneval_random_effects(m),
    code = as.integer(m$optRes$convergence),
    message = as.character(m$optRes$message),
    max_grad = max(abs(m$gradient)),
    cond_h = cond_h,
    n_iter = as.integer(m$neval),
    loglik = as.numeric(m$logLik),
    aic = AIC(m),
    n_params = as.integer(attr(logLik(m), "df")),
    nobs = as.integer(m$dims$nobs),
    seconds = seconds,
    warnings = caught
  )
}
