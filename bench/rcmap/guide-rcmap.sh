#!/bin/bash
# The example script of Linux Documentation/admin-guide/perf/nvidia-tegra410-pmu.rst ("Mapping the
# RC# to lspci segment number", NVIDIA Tegra410 PMU guide), verbatim except that every lspci/setpci call takes
# $PCI_OPTS so it can read a snapshot (-A linux-sysfs -O sysfs.path=DIR). Needs gawk (match() with
# an array is a gawk extension).
  while read bdf rest; do
    dvsec4_reg=$(lspci $PCI_OPTS -vv -s $bdf | awk '
      /Designated Vendor-Specific: Vendor=10de ID=0004/ {
        match($0, /\[([0-9a-fA-F]+)/, arr);
        print "0x" arr[1];
        exit
      }
    ')
    if [ -n "$dvsec4_reg" ]; then
      bus=$(setpci $PCI_OPTS -s $bdf $(printf '0x%x' $((${dvsec4_reg} + 0xc))).b)
      segment=$(setpci $PCI_OPTS -s $bdf $(printf '0x%x' $((${dvsec4_reg} + 0xd))).b)
      rp=$(setpci $PCI_OPTS -s $bdf $(printf '0x%x' $((${dvsec4_reg} + 0xe))).b)
      rc=$(setpci $PCI_OPTS -s $bdf $(printf '0x%x' $((${dvsec4_reg} + 0xf))).b)
      socket=$(setpci $PCI_OPTS -s $bdf $(printf '0x%x' $((${dvsec4_reg} + 0x10))).b)
      echo "$bdf: Bus=$bus, Segment=$segment, RP=$rp, RC=$rc, Socket=$socket"
    fi
  done < <(lspci $PCI_OPTS -d 10de:)
