/* The C interface a platform plugin exports: `--platform NAME` for a name that is not built in loads
 * libfmwork_platform_NAME.so and talks to it through this header only. Pure C (C99 and C++), no LibTorch
 * types; see docs/plugins.md for the lifetime, threading and search-path rules and a worked example.
 *
 * The plugin exports one function, FMWORK_PLUGIN_ENTRY_NAME, returning a static table. The table's first
 * field is the interface version the plugin was built against; the host refuses a table whose version is
 * not FMWORK_PLUGIN_INTERFACE_VERSION (the layout below is only valid for that version).
 *
 * Tensors and modules cross this interface as `void*` pointers to LibTorch objects (documented at each
 * field). Plugins that use them must be built against the same LibTorch major.minor as the host: the
 * table names the version it was built with and the host checks it. */
#ifndef FMWORK_PLUGIN_API_H
#define FMWORK_PLUGIN_API_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Bump on any change to the layout or meaning of the structures below. */
#define FMWORK_PLUGIN_INTERFACE_VERSION 1u

/* The exported entry point: `const fmwork_platform_plugin* fmwork_platform_plugin_entry(void);` */
#define FMWORK_PLUGIN_ENTRY_NAME "fmwork_platform_plugin_entry"

#if defined(_WIN32)
#define FMWORK_PLUGIN_EXPORT __declspec(dllexport)
#else
#define FMWORK_PLUGIN_EXPORT __attribute__((visibility("default")))
#endif

/* Status returned by every fallible call. A usage status means the user's command line is at fault (the
 * driver exits with 2); a runtime status means something failed while running (exit 1). */
typedef enum fmwork_status {
  FMWORK_OK = 0,
  FMWORK_USAGE_ERROR = 1,
  FMWORK_RUNTIME_ERROR = 2
} fmwork_status;

/* Where a plugin writes the message that goes with a non-OK status: one line that names what was tried
 * and what would be right. The host copies the text; call set() at most once per call that fails. */
typedef struct fmwork_message {
  void* host;
  void (*set)(struct fmwork_message* self, const char* text);
} fmwork_message;

/* One `--platform:KEY VALUE` option, as strings (a value given with `@` arrives as Python's str()). */
typedef struct fmwork_option {
  const char* key;
  const char* value;
} fmwork_option;

/* The LibTorch device the plugin's tensors live on. type is "privateuseone" (LibTorch's PrivateUse1
 * device, the usual case), "cpu" (for runtimes such as torch_sendnn that keep tensors on the CPU and run
 * the compiled graph themselves) or "cuda"; index is the device index (-1 for none, e.g. "cpu"). */
typedef struct fmwork_device {
  const char* type;
  int32_t index;
} fmwork_device;

/* An option the run must have, checked by the host against the command line before anything is loaded.
 * option: "compile" or "eval" for the fixed flags, or "SET:key[:key...]" for a sub-option
 *   ("torch.call:set_grad_enabled", "compile:backend").
 * value: what it must equal, written as on the command line. typed != 0: the value is a Python literal,
 *   compared with what `--SET:key@ VALUE` produced ("False", "1", "'x'"); typed == 0: a plain string,
 *   compared with `--SET:key VALUE` ("sendnn"). For the fixed flags use "True" with typed = 1.
 * reason: why, one short clause ("torch_sendnn runs inference only"), or NULL. */
typedef struct fmwork_requirement {
  const char* option;
  const char* value;
  int typed;
  const char* reason;
} fmwork_requirement;

/* The rules the platform imposes on a run. The strings must stay valid while the instance lives. */
typedef struct fmwork_constraints {
  int single_input_size;            /* nonzero: --input_sizes must be a single value */
  const char* single_input_reason;  /* why, or NULL */
  int single_batch_size;            /* nonzero: --batch_sizes must be a single value */
  const char* single_batch_reason;  /* why, or NULL */
  const fmwork_requirement* required;
  size_t required_count;
} fmwork_constraints;

/* The inputs of one rep, already on the plugin's device. Each field points to an at::Tensor
 * ([batch_size, input_size], int64) owned by the host and valid for the duration of the call. */
typedef struct fmwork_batch {
  const void* input_ids;
  const void* attention_mask;
  const void* token_type_ids;
  int64_t batch_size;
  int64_t input_size;
} fmwork_batch;

/* The model handed to a compile hook. The host keeps it alive (and on the plugin's device) until the
 * runner is destroyed. */
typedef struct fmwork_model {
  const char* path;          /* --model_root/--model_name: a TorchScript file or a Hugging Face folder */
  const char* model_class;   /* --model_class */
  const char* dtype;         /* "float32", "bfloat16", ... */
  const char* options_json;  /* the --model: set as a JSON object */
  /* A torch::jit::Module* when the model is a TorchScript archive, else NULL. */
  void* torchscript_module;
  /* The host's eager forward: writes the outputs into *(c10::IValue*)outputs. Plugins whose compiler
   * works on the host's model (or that fall back to eager) call this from their runner. */
  void* forward_context;
  fmwork_status (*forward)(void* forward_context, const fmwork_batch* batch, void* outputs,
                           fmwork_message* error);
} fmwork_model;

/* What a compile hook returns: the callable the sweep times. forward() writes the outputs into
 * *(c10::IValue*)outputs (they must stay alive until after synchronize); destroy() releases context. */
typedef struct fmwork_runner {
  void* context;
  fmwork_status (*forward)(void* context, const fmwork_batch* batch, void* outputs, fmwork_message* error);
  void (*destroy)(void* context);
  const char* description;  /* e.g. "refdev eager runner"; may be NULL; valid until destroy() */
} fmwork_runner;

/* The table the entry point returns. Optional functions are NULL when not provided. Unless stated,
 * `instance` is what create() returned. All calls come from the host's main thread, one at a time. */
typedef struct fmwork_platform_plugin {
  uint32_t interface_version;  /* FMWORK_PLUGIN_INTERFACE_VERSION; always the first field */
  uint32_t struct_size;        /* sizeof(fmwork_platform_plugin) */
  const char* name;            /* the platform name, equal to NAME in libfmwork_platform_NAME.so */
  const char* torch_version;   /* TORCH_VERSION the plugin was built with ("2.13.0"), NULL if it does
                                  not use LibTorch objects */

  /* Makes an instance from the --platform: options. Refuse unknown keys and bad values with
   * FMWORK_USAGE_ERROR and a message listing what is accepted. */
  fmwork_status (*create)(const fmwork_option* options, size_t option_count, void** instance,
                          fmwork_message* error);
  /* Releases the instance. Called once, when the driver is done with the platform. */
  void (*destroy)(void* instance);

  /* The device tensors and parameters are moved to. */
  fmwork_status (*device)(void* instance, fmwork_device* device, fmwork_message* error);
  /* Waits until all queued work is done. Called inside every rep, after the model call; keep it cheap. */
  fmwork_status (*synchronize)(void* instance, fmwork_message* error);
  /* Free text for the run's RUNTIME section (device model, options in effect). Valid while the instance
   * lives. */
  const char* (*description)(void* instance);

  /* Optional: memory peaks. reset_memory_peaks starts a new measurement; memory_peaks writes the peaks
   * since then and returns nonzero, or returns 0 when it cannot tell. */
  void (*reset_memory_peaks)(void* instance);
  int (*memory_peaks)(void* instance, int64_t* allocated_bytes, int64_t* reserved_bytes);

  /* Optional: the rules a run must follow; NULL means none. Written into *constraints. */
  void (*constraints)(void* instance, fmwork_constraints* constraints);

  /* Optional: compile backends of the plugin's own (`--compile --compile:backend NAME`). backends lists
   * backend_count names. compile() gets the chosen backend, the whole --compile: set as a JSON object
   * (`{"backend": "sendnn", "options": {...}}`) and the model; it fills *runner, or refuses with
   * FMWORK_USAGE_ERROR (options it does not accept) or FMWORK_RUNTIME_ERROR (the compiler failed). */
  const char* const* (*compile_backends)(void* instance, size_t* backend_count);
  fmwork_status (*compile)(void* instance, const char* backend, const char* options_json,
                           const fmwork_model* model, fmwork_runner* runner, fmwork_message* error);
} fmwork_platform_plugin;

typedef const fmwork_platform_plugin* (*fmwork_platform_plugin_entry_fn)(void);

#ifdef __cplusplus
}
#endif

#endif /* FMWORK_PLUGIN_API_H */
