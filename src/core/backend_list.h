/*
 * The backends --backend names: one line each, X(name, arg, about), where
 * arg is the word --backend name=ARG takes ("FILE"), or NULL for a backend
 * that takes none, and about is what it does, for --help. Each needs src/backend/backend_<name>.c defining `const
 * struct sw_backend sw_backend_<name>`; CMake reads this list to find the
 * sources, job/cli.c to parse --backend, backend/backend.c for the table.
 * Plain names on the ground floor, so the CLI need not know the backends.
 * `auto` is no backend: run/setup.c picks cuda where every rank has a GPU,
 * else model.
 */
X(cuda, NULL, "measure on the GPU")
X(model, NULL, "predict from each kernel's access pattern, no GPU needed")
X(replay, "FILE",
  "a test instrument that sleeps each point's wall time from the result FILE, to try a "
  "schedule at scale: its rows are no measurements")
