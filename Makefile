# pkmflex top-level driver. The two set-up commands of the README:
#   make run    install the Debian packages if missing, build, run the main job (Table 3
#               comparison, then a frequency map to navaro_map.h5)
#   make test   the same build, then the fast tests (ctest -LE slow) of the normal build, then of
#               the ASan + UBSan build with clang (which adds the libFuzzer harnesses of tests/fuzz/:
#               their seed corpora replayed), each ctest on all the machine's cores
#   make test-all  the same with the tests labelled slow in the normal build and the timed fuzzing
#               runs (label fuzz) in the ASan build (CI: .ci/run)
#   make format-check  clang-format --dry-run --Werror over the C files git knows (CI runs it)
#   make test-mpi  the MPI sweep (PKM_MPI=ON, build-mpi/, Open MPI installed): mpirun -n 2 and 3
# clang and its runtime (libFuzzer) serve the sanitizer build only; the main build is gcc's.
# libopenblas0-serial takes over libblas.so.3 and liblapack.so.3 (Debian's alternatives), so
# pkmflex and NumPy/SciPy run on the same single-threaded OpenBLAS; it chooses its kernels from
# the processor or from OPENBLAS_CORETYPE, which the build and the tests leave as they find it.
DEBS := cmake make gcc pkg-config libsuitesparse-dev libarpack2-dev libhdf5-dev libcmocka-dev \
        liblapack-dev libblas-dev libopenblas0-serial hdf5-tools python3-h5py python3-numpy python3-scipy \
        libcyaml-dev libyaml-dev libgsl-dev \
        python3-vtk9 python3-matplotlib \
        python3-dev python3-pytest python3-venv python3-pip python3-setuptools \
        clang libclang-rt-14-dev clang-format
# make test-mpi only: Open MPI, installed by that target through `deps` (the default build and
# make test stay MPI-free).
MPI_DEBS := openmpi-bin libopenmpi-dev
# CMake's Makefiles run make recursively: without this, each of its makes prints "Entering
# directory" and "Leaving directory" (some 300 lines a build). Through MAKEFLAGS the makes that
# cmake --build starts inherit it; another generator (Ninja) ignores it.
MAKEFLAGS += --no-print-directory
PKM_WERROR ?= OFF
JOBS ?= 2
# ctest's parallel jobs: the tests are single-threaded processes mostly, one per core.
NPROC := $(shell nproc 2>/dev/null || echo 2)
BUILD := build
# The labels test-asan leaves out: slow always (tests/CMakeLists.txt), fuzz unless test-all.
ASAN_EXCLUDE ?= slow|fuzz
ASAN_BUILD := build-asan
MPI_BUILD := build-mpi

# make python: the library installed (cmake --install, PREFIX), then the Python package
# (python/, docs/python.md) installed into the virtual environment VENV, made with Debian's
# python3 and its site packages (numpy): `. $(VENV)/bin/activate`, then `import pkmflex`.
PREFIX ?= /usr/local
VENV ?= .venv

.PHONY: all deps build run test test-all test-asan test-mpi python format format-check clean
all: build

deps:
	@missing=$$(for p in $(DEBS); do dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null \
	    | grep -q 'install ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	    echo "installing Debian packages:" $$missing; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
	fi

build: deps
	cmake -S . -B $(BUILD) -DPKM_WERROR=$(PKM_WERROR) -DCMAKE_BUILD_TYPE=RelWithDebInfo
	cmake --build $(BUILD) -j $(JOBS)

# The main job: NaVARo against Cast3M (Germain et al. 2015, Table 3), then its frequency map over
# the workspace at theta = -pi/3 (the orientation of poses 2-8) written to navaro_map.h5.
run: build
	./$(BUILD)/pkmflex compare navaro --table cases/navaro/table3_cast3m.csv
	./$(BUILD)/pkmflex map navaro --grid x=-0.22:0.22:45,y=-0.22:0.22:45 \
	    --pose 0,0,-1.0471975511965976 --nev 8 -o navaro_map.h5

# The tests labelled slow (heavy command-line runs: tests/CMakeLists.txt) run in the normal build
# only, by test-all; under the sanitizers they would take minutes and check no other code.
# The timed fuzzing runs (label fuzz) likewise run in test-all only.
test: build
	ctest --test-dir $(BUILD) --output-on-failure -j $(NPROC) -LE slow
	$(MAKE) --no-print-directory test-asan

test-all: build
	ctest --test-dir $(BUILD) --output-on-failure -j $(NPROC)
	$(MAKE) --no-print-directory test-asan ASAN_EXCLUDE=slow

python: build
	cmake --install $(BUILD) --prefix $(PREFIX)
	test -x $(VENV)/bin/pip || /usr/bin/python3 -m venv --system-site-packages $(VENV)
	PKG_CONFIG_PATH=$(PREFIX)/lib/pkgconfig:$$PKG_CONFIG_PATH $(VENV)/bin/pip install \
	    --no-build-isolation --force-reinstall --no-deps ./python
	rm -rf python/build python/pkmflex.egg-info

# CMake cannot switch the compiler of a build in place: a build-asan made by gcc is redone.
# -O1 (AddressSanitizer's advice): the numerical tests run 2-5 times faster than at -O0, with the
# same checks; asserts stay on (no NDEBUG). -gline-tables-only: the sanitizers' stack traces keep
# their files and lines, the build takes 14 % less (no variables for a debugger: -g for that).
# No bench/ there.
test-asan: deps
	@grep -qs '^CMAKE_C_COMPILER:.*clang' $(ASAN_BUILD)/CMakeCache.txt || rm -rf $(ASAN_BUILD)
	cmake -S . -B $(ASAN_BUILD) -DCMAKE_C_COMPILER=clang -DPKM_WERROR=$(PKM_WERROR) \
	    -DPKM_SANITIZE=ON -DPKM_FUZZ=ON -DPKM_BENCH=OFF -DCMAKE_BUILD_TYPE=Debug \
	    -DCMAKE_C_FLAGS_DEBUG="-gline-tables-only -O1"
	cmake --build $(ASAN_BUILD) -j $(JOBS)
	ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
	    ctest --test-dir $(ASAN_BUILD) --output-on-failure -j $(NPROC) -LE '$(ASAN_EXCLUDE)'

# PKM_MPI=ON in its own build: the MPI sweep's tests (label mpi) with 2 and 3 ranks, more ranks
# than cores allowed (--oversubscribe in the tests), as root (the tests' environment says so).
test-mpi:
	$(MAKE) --no-print-directory deps DEBS="$(DEBS) $(MPI_DEBS)"
	cmake -S . -B $(MPI_BUILD) -DPKM_WERROR=$(PKM_WERROR) -DPKM_MPI=ON \
	    -DCMAKE_BUILD_TYPE=RelWithDebInfo
	cmake --build $(MPI_BUILD) -j $(JOBS)
	ctest --test-dir $(MPI_BUILD) -L mpi --output-on-failure -j 1

format:
	clang-format -i $$(git ls-files '*.c' '*.h')

format-check: deps
	clang-format --dry-run --Werror $$(git ls-files '*.c' '*.h')

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(MPI_BUILD)
