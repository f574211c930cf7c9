// One case: model x method x h x duration -> a CaseRecord (docs/architecture.md). It makes the method,
// plans the steps, sets up the observers (the model's metrics, the samples, the error against the
// cached reference trajectory), steps through the driver and fills the record. A numerical
// failure is a status in the record, never an exception.
#pragma once
#include <string>

#include "models/model.hpp"
#include "records/record.hpp"
#include "sim/driver.hpp"

namespace mb {

// Bad input (unknown method, bad options, h <= 0, a sample time off the step grid of a fixed-step
// method, outside the run) throws InputError (source and line name where the input came from); a
// model the method's metadata does not support, or that it refuses at init, throws
// UnsupportedModel. Anything that goes wrong during the simulation is status Failed.
CaseRecord run_case(const Model& model, const std::string& method_spec, const RunConfig& cfg,
                    const std::string& source = "command line", int line = 0);

// The provenance of a record of `method`: a peer engine's version beside the build's libraries,
// under the method's name (docs/peers.md); nothing for a method without a version.
void add_engine_version(const std::string& method, const std::string& version, Provenance& p);

}  // namespace mb
