// Errors of mbbench. Every exception the library throws derives from mb::Error.
//  - InputError: bad user input (scene, experiment, command line). Names the file, the line and
//    the field; the CLI prints it and exits with code 2.
//  - UnsupportedModel: a method cannot simulate a model (e.g. GC4 on a closed loop); names why.
//  - SimulationError: a run went wrong (non-convergence, singular solve); recorded as the case's
//    failure reason, the sweep goes on.
#pragma once
#include <stdexcept>
#include <string>
#include <utility>

namespace mb {

struct Error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct InputError : Error {
  // file: a path or "command line"; line: 1-based, 0 when there is none
  InputError(std::string file, int line, std::string field, const std::string& message);
  std::string file;
  int line;
  std::string field;
  std::string message;
};

struct UnsupportedModel : Error {
  using Error::Error;
};

struct SimulationError : Error {
  using Error::Error;
};

// An iterative correction that did not reach its tolerance: `tolerance_option` names the method
// option that sets that tolerance ("tol_v"), `error` is where the iteration stopped. The driver
// adds the options that help (convergence_hint, methods/method.hpp) to the failure reason.
struct ConvergenceError : SimulationError {
  ConvergenceError(const std::string& message, std::string option, double err)
      : SimulationError(message), tolerance_option(std::move(option)), error(err) {}
  std::string tolerance_option;
  double error;
};

}  // namespace mb
