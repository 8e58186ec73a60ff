# The engine: plain C files under module/ that build into kunwind.ko and into
# the host tool and tests alike.  Included by Kbuild and Makefile.
KUW_ENGINE := err read ehframe ehframe_hdr cfi dwop sframe rows step format blob
