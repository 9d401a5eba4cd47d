# The reference for tests/report/test_reference_rasch.py: psychotools' MathExam14W (729 students, 13 items of
# a real R/exams NOPS exam, in two groups that sat different versions of the exercises), written as the CSV
# that `quizzer report --results` reads, and what R's eRm and base R compute on it.
# Usage: Rscript mathexam14w.R OUTPUT_FOLDER
suppressMessages({library(eRm); library(psychotools)})
out <- commandArgs(trailingOnly = TRUE)[1]
data("MathExam14W", package = "psychotools")
x <- unclass(MathExam14W$solved)
storage.mode(x) <- "integer"
group <- as.character(MathExam14W$group)
long <- data.frame(learner = rep(seq_len(nrow(x)), ncol(x)), question = rep(colnames(x), each = nrow(x)),
                   score = as.vector(x), version = rep(group, ncol(x)))
write.csv(long[order(long$learner), ], file.path(out, "results.csv"), row.names = FALSE, quote = FALSE)
m <- RM(x)  # conditional ML, item parameters summing to 0 (sum0 = TRUE)
p <- sapply(seq_len(ncol(x)), function(i)
  prop.test(tapply(x[, i], group, sum), tapply(x[, i], group, length), correct = FALSE)$p.value)
write.csv(data.frame(
  question = colnames(x),
  difficulty = -m$betapar, se = m$se.beta,  # eRm's betas are easiness: difficulty = -beta
  facility = colMeans(x),
  discrimination = sapply(seq_len(ncol(x)), function(i) cor(x[, i], rowSums(x[, -i]))),
  group_p = p), file.path(out, "reference.csv"), row.names = FALSE)
