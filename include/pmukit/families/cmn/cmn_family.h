// pmukit -- the Arm CMN family: CMN-600/650/700 and CI-700 meshes (Linux arm-cmn.c), their
// layout, driver, simulator model and the machine spec's "cmn" section.
#pragma once

#include "pmukit/discovery/family.h"

namespace pmukit::families {

const discovery::Family& cmn_family();

}  // namespace pmukit::families
