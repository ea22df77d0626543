# shellcheck shell=bash
# The Debian 12 packages Zhaoxi needs to build, test and run. Sourced by scripts/run and
# scripts/test; installs whatever is missing (apt-get update first), as root or through sudo.
ZX_PACKAGES=(
    build-essential cmake ninja-build pkg-config
    qt6-base-dev qt6-base-dev-tools qt6-tools-dev qt6-tools-dev-tools qt6-l10n-tools
    qt6-translations-l10n
    libqt6sql6-sqlite qt6-qpa-plugins
    libqcustomplot-dev libsqlite3-dev
    fonts-wqy-microhei
    clang-format
    qt6-httpserver-dev qt6-websockets-dev prometheus
    # scripts/slurm-local (the fleet tests' local Slurm cluster; installing starts no daemon)
    slurmctld slurmd slurm-client slurmrestd slurm-wlm-jwt-plugin munge curl
    slurmdbd mariadb-server
    # bench/sim/demo-day-seeds.sh reads simulate's JSON with it
    jq
)

zx_install_deps() {
    local missing=()
    local p
    for p in "${ZX_PACKAGES[@]}" "$@"; do
        if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
            missing+=("$p")
        fi
    done
    if [ ${#missing[@]} -eq 0 ]; then
        return 0
    fi
    echo "zhaoxi: installing missing packages: ${missing[*]}"
    local sudo=""
    if [ "$(id -u)" -ne 0 ]; then
        if command -v sudo >/dev/null 2>&1; then
            sudo="sudo"
        else
            echo "zhaoxi: these packages are missing and I am not root (no sudo): ${missing[*]}" >&2
            return 1
        fi
    fi
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -q
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
}
