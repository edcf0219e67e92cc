// All of stats/: pure numerics on std::span<const double>. See each header for the
// definitions and edge cases; pipeline.h holds the two entry points most callers need.
#pragma once

#include "stats/bootstrap.h"
#include "stats/changepoint.h"
#include "stats/dependence.h"
#include "stats/descriptive.h"
#include "stats/hypothesis.h"
#include "stats/outliers.h"
#include "stats/pipeline.h"
#include "stats/sequential.h"
#include "stats/slope.h"
