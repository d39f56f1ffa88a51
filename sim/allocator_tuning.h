// Keeps freed memory in the process for the next evaluation. Compiling a large model's plan
// allocates and frees arrays of several megabytes (GPT-3 175B's instructions alone take five);
// with glibc's defaults such a block is either mapped fresh from the kernel or the heap's top is
// handed back to it when freed, so every evaluation pays for zeroing new pages again — the
// simulator's own work on GPT-3 ran at under half speed because of it. The programs (`remat`,
// `remat-studio`, the benchmarks) call this once at start: blocks of up to 32 MiB come from the
// heap, and up to 256 MiB of free heap is kept rather than returned. Elsewhere than glibc it
// does nothing.
#pragma once

namespace remat {

void keepFreedMemoryForReuse();

}  // namespace remat
