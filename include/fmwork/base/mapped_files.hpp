// Files mapped in place (the safetensors weights, zero-copy) that another process may cut short while a
// run reads them. Touching a page past the file's new end raises SIGBUS, which killed the driver. A
// registered mapping is guarded: the process's SIGBUS handler puts a page of zeros where the file's page
// was, marks the file cut, and the access goes on; the sweep then asks check_mapped_files() after each
// combination and turns a cut file into that combination's FAIL line. Nothing is copied: the load stays
// zero-copy. A SIGBUS outside every registered mapping keeps its old meaning (the previous handler, else
// the default action).
#pragma once

#include <cstddef>
#include <string>

namespace fmwork {

// Guards [start, start + size), a mapping of the file `path`, until unregister_mapped_file(start). At most
// 256 mappings at once (a sharded checkpoint's files); past that the mapping is simply not guarded.
// Installs the SIGBUS handler on first use. Never throws.
void register_mapped_file(const void* start, size_t size, const std::string& path);
void unregister_mapped_file(const void* start);

// Throws a runtime Error "<path>: the file was cut short while the run read it in place (its missing pages
// read as zeros); restore it and run again" when a guarded mapping lost pages since it was registered.
void check_mapped_files();

}  // namespace fmwork
