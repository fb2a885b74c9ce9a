// kiln: tile kernels in C++. One include brings the whole user surface
// (DESIGN.md, "The surface users write") and the tile standard library.
#pragma once

#include <kiln/error.h>
#include <kiln/kind.h>
#include <kiln/numeric.h>
#include <kiln/shape.h>
#include <kiln/tile.h>
#include <kiln/ops.h>
#include <kiln/eager.h>
#include <kiln/view.h>
#include <kiln/kernel.h>
#include <kiln/target.h>
#include <kiln/executable.h>
#include <kiln/bench.h>
#include <kiln/std/tile_lib.h>
