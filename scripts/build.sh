#!/usr/bin/env bash
# Builds the WebAssembly core (release) and the web app, skipping each when its
# inputs have not changed since the last build.
set -euo pipefail
cd "$(dirname "$0")/.."
# wasm-opt from the npm binaryen package comes first: Debian's is too old.
export PATH="$PWD/node_modules/.bin:$HOME/.cargo/bin:$PATH"

say() { printf 'build: %s\n' "$*"; }
mkdir -p .build-stamps

# A hash of the named files and folders' contents.
inputs_hash() {
  find "$@" -type f -not -path '*/node_modules/*' -print0 2>/dev/null | sort -z | xargs -0 sha256sum | sha256sum | cut -d' ' -f1
}

wasm_hash=$(inputs_hash scripts/build.sh Cargo.toml Cargo.lock crates/sched-core crates/sched-scenario crates/sched-wasm)
if [ -f web/wasm-pkg/sched_wasm_bg.wasm ] && [ "$(cat .build-stamps/wasm 2>/dev/null)" = "$wasm_hash" ]; then
  say "WebAssembly core: up to date, skipping"
else
  say "building the WebAssembly core (release)"
  # 128-bit SIMD (every browser since 2021, Node 16.4+): memchr's line splitting and
  # LLVM's loops use it. It changes no result: the native and wasm traces stay equal.
  RUSTFLAGS="-C target-feature=+simd128" wasm-pack build crates/sched-wasm --release --target web --out-dir ../../web/wasm-pkg
  rm -f web/wasm-pkg/.gitignore
  echo "$wasm_hash" > .build-stamps/wasm
fi

web_hash=$(inputs_hash web/src web/index.html web/vite.config.ts web/package.json web/tsconfig.json web/wasm-pkg scenarios package-lock.json)
if [ -f web/dist/index.html ] && [ "$(cat .build-stamps/web 2>/dev/null)" = "$web_hash" ]; then
  say "web app: up to date, skipping"
else
  say "building the web app"
  npm run build -w web
  echo "$web_hash" > .build-stamps/web
fi
