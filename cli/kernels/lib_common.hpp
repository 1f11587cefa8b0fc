// Shared by the built-in kernels' registrations (cli/kernels/*.cpp): the kernel-library names
// they declare with, and Eigen maps for their native implementations.
#pragma once
#include <Eigen/Core>

#include "bv/library/entry.hpp"
#include "gpu_compare.hpp"
#include "outcome.hpp"
#include "registry.hpp"

namespace bv::cli::lib {

using bv::library::checker;
using bv::library::kernel;
using bv::library::launches;
using bv::library::output;
using bv::library::sizes;
using doubles = std::vector<double>;  // a one-output reference

using fmat = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using fmap = Eigen::Map<fmat>;
using farr = Eigen::Array<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using famap = Eigen::Map<farr>;

}  // namespace bv::cli::lib
