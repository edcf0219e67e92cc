// The Boost.Math distributions stats/ evaluates, in double throughout.
//
// Boost promotes double arguments to long double internally by default: a Student t
// quantile takes 3.4 us here that way and 0.6 us in double, whose error (a few ulp)
// lies far below anything a report prints, while a check evaluates a few of them for
// each of its comparisons at every look.
#pragma once

#include <boost/math/distributions/normal.hpp>
#include <boost/math/distributions/students_t.hpp>

namespace obscheck::stats {

using DoublePolicy = boost::math::policies::policy<boost::math::policies::promote_double<false>>;
using StudentsT = boost::math::students_t_distribution<double, DoublePolicy>;
using Normal = boost::math::normal_distribution<double, DoublePolicy>;

}  // namespace obscheck::stats
