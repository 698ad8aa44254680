// pmukit -- the DesignWare PCIe RAS DES family: root ports with the RAS DES VSEC (Linux
// dwc_pcie_pmu.c), their layout, driver and simulator model.
#pragma once

#include "pmukit/discovery/family.h"

namespace pmukit::families {

const discovery::Family& designware_family();

}  // namespace pmukit::families
