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
    # Debian packages the tests and benchmarks need, installed only when
    # missing: the interop peers tshark and airdecap-ng (aircrack-ng), and
    # the build-time needs of the benchmark's peers (crates/wisec-peers):
    # OpenSSL's headers through pkg-config, and Intel's ipsec-mb; and the
    # font of the lab's plots.
    local missing_pkgs=()
    command -v tshark >/dev/null 2>&1 || missing_pkgs+=(tshark)
    command -v airdecap-ng >/dev/null 2>&1 || missing_pkgs+=(aircrack-ng)
    command -v pkg-config >/dev/null 2>&1 || missing_pkgs+=(pkg-config)
    [ -f /usr/include/openssl/evp.h ] || missing_pkgs+=(libssl-dev)
    [ -f /usr/include/intel-ipsec-mb.h ] || missing_pkgs+=(libipsec-mb-dev)
    # The lab's PNG plots load DejaVu Sans at run time (plotters is built
    # without fontconfig); without it they are drawn without text.
    [ -f /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf ] || missing_pkgs+=(fonts-dejavu-core)
    # The bare machine: QEMU boots its image; binutils' ld and objcopy link
    # it; gcc compiles the C interface's test program; python3-venv holds
    # the project's Python environment (.venv): the bare machine's
    # independent client (cryptography) and the wisec Python package.
    command -v qemu-system-x86_64 >/dev/null 2>&1 || missing_pkgs+=(qemu-system-x86)
    command -v ld >/dev/null 2>&1 || missing_pkgs+=(binutils)
    command -v objcopy >/dev/null 2>&1 || missing_pkgs+=(binutils)
    command -v gcc >/dev/null 2>&1 || missing_pkgs+=(gcc)
    # The fuzz targets link libFuzzer, which the libfuzzer-sys crate
    # compiles from its C++ sources.
    command -v g++ >/dev/null 2>&1 || missing_pkgs+=(g++)
    /usr/bin/python3 -c 'import venv, ensurepip' >/dev/null 2>&1 || missing_pkgs+=(python3-venv)
    # The live lab: namespaces, veth and bridges (iproute2), and the real
    # programs it runs across the medium (iperf3, ping).
    command -v ip >/dev/null 2>&1 || missing_pkgs+=(iproute2)
    command -v iperf3 >/dev/null 2>&1 || missing_pkgs+=(iperf3)
    command -v ping >/dev/null 2>&1 || missing_pkgs+=(iputils-ping)
    # WPA2-Enterprise in the live lab (`wisec lab run auth`): FreeRADIUS as
    # the authentication server (radclient checks it), wpa_supplicant as the
    # stations' EAP peer, eapol_test as an independent peer of the LEAP
    # server, openssl for each run's certificates.
    [ -x /usr/sbin/freeradius ] || missing_pkgs+=(freeradius)
    command -v radclient >/dev/null 2>&1 || missing_pkgs+=(freeradius-utils)
    [ -x /usr/sbin/wpa_supplicant ] || missing_pkgs+=(wpasupplicant)
    command -v eapol_test >/dev/null 2>&1 || missing_pkgs+=(eapoltest)
    # `lab run multihop` (seed 004): babeld routes an ad hoc chain, strongSwan
    # (charon, swanctl, and kernel-libipsec from the extra plugins) secures
    # its ends, ffmpeg streams the load, nftables keeps cleartext off the air;
    # util-linux's unshare, taskset and chrt place the programs, openssl makes
    # the run's certificates.
    command -v babeld >/dev/null 2>&1 || [ -x /usr/sbin/babeld ] || missing_pkgs+=(babeld)
    [ -x /usr/lib/ipsec/charon ] || missing_pkgs+=(strongswan-charon)
    command -v swanctl >/dev/null 2>&1 || [ -x /usr/sbin/swanctl ] || missing_pkgs+=(strongswan-swanctl)
    [ -f /usr/lib/ipsec/plugins/libstrongswan-kernel-libipsec.so ] || missing_pkgs+=(libcharon-extra-plugins)
    command -v ffmpeg >/dev/null 2>&1 || missing_pkgs+=(ffmpeg)
    command -v nft >/dev/null 2>&1 || [ -x /usr/sbin/nft ] || missing_pkgs+=(nftables)
    for p in unshare taskset chrt; do
        command -v "$p" >/dev/null 2>&1 || missing_pkgs+=(util-linux)
    done
    command -v openssl >/dev/null 2>&1 || missing_pkgs+=(openssl)
    # `wisec ko-deps` is checked against binutils (nm, readelf, strip) and
    # kmod (modinfo) on Debian's kernel package, which scripts/debian-kernel
    # fetches with apt-get download and unpacks with dpkg-deb; the tests
    # compress modules with xz, zstd, gzip and bzip2.
    command -v nm >/dev/null 2>&1 || missing_pkgs+=(binutils)
    command -v readelf >/dev/null 2>&1 || missing_pkgs+=(binutils)
    command -v modinfo >/dev/null 2>&1 || [ -x /usr/sbin/modinfo ] || [ -x /sbin/modinfo ] || missing_pkgs+=(kmod)
    command -v xz >/dev/null 2>&1 || missing_pkgs+=(xz-utils)
    command -v zstd >/dev/null 2>&1 || missing_pkgs+=(zstd)
    command -v bzip2 >/dev/null 2>&1 || missing_pkgs+=(bzip2)
    command -v gzip >/dev/null 2>&1 || missing_pkgs+=(gzip)
    # pyo3 links libpython when Cargo (not maturin) builds crates/wisec-py,
    # as cargo build/test --workspace do.
    dpkg -s libpython3-dev >/dev/null 2>&1 || missing_pkgs+=(libpython3-dev)
    if [ "${#missing_pkgs[@]}" -gt 0 ]; then
        echo "==> installing ${missing_pkgs[*]}"
        as_root apt-get update
        # Answer wireshark-common's "may non-superusers capture" question.
        echo "wireshark-common wireshark-common/install-setuid boolean false" |
            as_root debconf-set-selections 2>/dev/null || true
        # binutils may be listed twice; apt-get takes it once.
        as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y "${missing_pkgs[@]}"
    fi
    # scripts/debian-kernel asks apt-cache for the current kernel package.
    if ! apt-cache show "linux-image-$(dpkg --print-architecture)" >/dev/null 2>&1; then
        echo "==> apt-get update (for the kernel package the ko-deps tests read)"
        as_root apt-get update
    fi
    install_python_env
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

# The project's Python virtual environment, .venv/ in the repository
# (git-ignored), with every package of scripts/python-requirements.txt:
# installed when the environment is new or the list changed, never at
# test time.
install_python_env() {
    local root venv req stamp
    root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
    venv="$root/.venv"
    req="$root/scripts/python-requirements.txt"
    stamp="$venv/.requirements"
    if [ ! -x "$venv/bin/python3" ]; then
        echo "==> creating $venv"
        /usr/bin/python3 -m venv "$venv"
    fi
    if ! cmp -s "$req" "$stamp"; then
        echo "==> pip install -r scripts/python-requirements.txt into $venv"
        "$venv/bin/python3" -m pip install --quiet --upgrade pip
        "$venv/bin/python3" -m pip install --quiet -r "$req"
        cp "$req" "$stamp"
    fi
}

# Builds the wisec Python package (crates/wisec-py) into a wheel with
# maturin and installs it into .venv. WISEC_PY_PROFILE picks the Cargo
# profile: dev (the default, for the tests) or release (for use and
# benchmarks).
install_python_package() {
    local root venv profile wheels
    root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
    venv="$root/.venv"
    profile="${WISEC_PY_PROFILE:-dev}"
    wheels="$root/target/wheels-$profile"
    rm -rf "$wheels"
    echo "==> maturin build --profile $profile (crates/wisec-py) and pip install the wheel"
    "$venv/bin/maturin" build --quiet --profile "$profile" --compatibility linux \
        -m "$root/crates/wisec-py/Cargo.toml" -i "$venv/bin/python3" -o "$wheels"
    "$venv/bin/python3" -m pip install --quiet --force-reinstall --no-deps "$wheels"/wisec-*.whl
}
