/*
 * The backends --backend names: one line each, X(name, arg), where arg is
 * the word --backend name=ARG takes ("FILE"), or NULL for a backend that
 * takes none. Each needs src/backend/backend_<name>.c defining `const
 * struct sw_backend sw_backend_<name>`; CMake reads this list to find the
 * sources, job/cli.c to parse --backend, backend/backend.c for the table.
 * Plain names on the ground floor, so the CLI need not know the backends.
 * `auto` is no backend: run/setup.c picks cuda where every rank has a GPU,
 * else model.
 */
X(cuda, NULL)
X(model, NULL)
X(replay, "FILE")
