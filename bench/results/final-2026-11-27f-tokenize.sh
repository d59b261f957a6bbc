#!/bin/bash
# run.sh - the lead's tokenize measurements of issue 15 (2026-11-27, fourth session):
# bench/gpu_issue15.sh PART=tokenize RUNS=3, main 4b8055c (after i15w: bin written from the
# device's pinned ids) against 8e9c188 (the session's start) as winnow-base, alternating.
D=$(cd "$(dirname "$0")" && pwd)
PART=tokenize RUNS=3 bash $D/gpu_issue15.sh
