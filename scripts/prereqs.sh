# Sourced by scripts/test and scripts/run: installs what the project needs
# on a fresh Debian machine, and only what is missing.

as_root() {
    if [ "$(id -u)" -eq 0 ]; then
        "$@"
    elif command -v sudo >/dev/null 2>&1; then
        sudo "$@"
    else
        echo "scripts: need root (or sudo) to run: $*" >&2
        return 1
    fi
}

install_prereqs() {
    if ! command -v tshark >/dev/null 2>&1; then
        echo "==> installing tshark"
        as_root apt-get update
        # Answer the "may non-superusers capture" question non-interactively.
        echo "wireshark-common wireshark-common/install-setuid boolean false" |
            as_root debconf-set-selections 2>/dev/null || true
        as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y tshark
    fi
    if ! command -v airdecap-ng >/dev/null 2>&1; then
        echo "==> installing aircrack-ng (airdecap-ng)"
        as_root apt-get update
        as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y aircrack-ng
    fi
    if ! command -v cargo >/dev/null 2>&1; then
        echo "scripts: cargo not found; install Rust with rustup (https://rustup.rs)" >&2
        return 1
    fi
    if command -v rustup >/dev/null 2>&1; then
        local have
        have=$(rustup component list --installed 2>/dev/null || true)
        for c in rustfmt clippy; do
            if ! grep -q "^$c" <<<"$have"; then
                echo "==> rustup component add $c"
                rustup component add "$c"
            fi
        done
    fi
}
