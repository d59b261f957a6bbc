#!/bin/bash
# run.sh - the lead's final tokenize measurements of issue 15 (2026-11-27, third session):
# bench/gpu_issue15.sh PART=tokenize RUNS=3, main 9f5ba36 (after i15n, i15e, i15p) against
# 5da6e2c (the session's start) as winnow-base, alternating.
D=$(cd "$(dirname "$0")" && pwd)
PART=tokenize RUNS=3 bash $D/gpu_issue15.sh
