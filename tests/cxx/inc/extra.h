// Found through `with "-Iinc"` (test_cxx.cpp), relative to the .scan file.
#pragma once
#ifndef EXTRA_SCALE
#define EXTRA_SCALE 2
#endif
