// The headers of the standard library, Eigen and fmt that most files include, compiled once per
// target into a precompiled header (CMakeLists.txt, MBBENCH_PCH). Parsing them was the larger part
// of compiling a typical file. Every file still includes what it uses: a build without the
// precompiled header (-DMBBENCH_PCH=OFF) compiles as well.
#pragma once
#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <Eigen/Dense>
#include <fmt/format.h>
