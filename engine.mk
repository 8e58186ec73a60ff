# The engine: plain C files under module/engine/ that build into kunwind.ko
# and into the host tool and tests alike.  Included by Kbuild and Makefile;
# tests/fuzz/run.sh and scripts/check.sh read the list from this one line.
KUW_ENGINE := err read ehframe ehframe_hdr cfi cfi_fast dwop sframe rows_build rows_layout rows_lookup step format blob
