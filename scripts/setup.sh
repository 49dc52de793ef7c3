#!/usr/bin/env bash
# Installs everything schedlab needs to build and test, and skips what is already
# there. Both `npm start` and `npm test` run it; running it again is cheap.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"

say() { printf 'setup: %s\n' "$*"; }
die() { printf 'setup: error: %s\n' "$*" >&2; exit 1; }

command -v cargo >/dev/null || die "cargo is not installed; install Rust with rustup first"
command -v node >/dev/null || die "node is not installed"
command -v npm >/dev/null || die "npm is not installed"

# Rust: the WebAssembly target and the lint tools the tests run.
if rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  say "rust target wasm32-unknown-unknown: already installed"
else
  say "installing rust target wasm32-unknown-unknown"
  rustup target add wasm32-unknown-unknown
fi
for component in clippy rustfmt; do
  if rustup component list --installed | grep -q "^${component}"; then
    say "rust component ${component}: already installed"
  else
    say "installing rust component ${component}"
    rustup component add "${component}"
  fi
done

# cargo install, preferring the crate's own lockfile; some pinned transitive
# versions are not on every registry mirror, so fall back to a fresh resolution.
cargo_install() {
  cargo install --locked "$@" || cargo install "$@"
}

# wasm-bindgen-cli must match the wasm-bindgen in Cargo.lock exactly, or wasm-pack
# would try to download one.
want_bindgen=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock)
[ -n "$want_bindgen" ] || die "cannot find wasm-bindgen in Cargo.lock"
have_bindgen=$(wasm-bindgen --version 2>/dev/null | awk '{ print $2 }' || true)
if [ "$have_bindgen" = "$want_bindgen" ]; then
  say "wasm-bindgen-cli ${want_bindgen}: already installed"
else
  say "installing wasm-bindgen-cli ${want_bindgen} (a few minutes)"
  cargo_install wasm-bindgen-cli --version "=${want_bindgen}"
fi

WASM_PACK_VERSION=0.15.1
if wasm-pack --version 2>/dev/null | grep -q "${WASM_PACK_VERSION}"; then
  say "wasm-pack ${WASM_PACK_VERSION}: already installed"
else
  say "installing wasm-pack ${WASM_PACK_VERSION} (a few minutes)"
  cargo_install wasm-pack --version "=${WASM_PACK_VERSION}"
fi

# From Debian: Chromium for the browser tests (never a downloaded browser build), and
# valgrind, whose instruction counts the performance guard in `npm test` reads.
apt_install() {
  command -v apt-get >/dev/null || die "$1 is missing and apt-get is not available"
  say "installing $2 from Debian"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y "$2"
}
if [ -x /usr/bin/chromium ]; then
  say "chromium: already installed"
else
  apt_install /usr/bin/chromium chromium
fi
if command -v valgrind >/dev/null; then
  say "valgrind: already installed"
else
  apt_install valgrind valgrind
fi

# npm packages (including binaryen's wasm-opt, which wasm-pack uses): reinstall
# only when package-lock.json changed since the last install.
lock_hash=$(sha256sum package-lock.json | cut -d' ' -f1)
stamp=node_modules/.schedlab-lock-hash
if [ -d node_modules ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$lock_hash" ]; then
  say "npm packages: already installed"
else
  say "installing npm packages"
  npm ci --no-audit --no-fund
  echo "$lock_hash" > "$stamp"
fi
say "done"
