# Sourced by pair.sh (which defines say, die, here, repo and cache): the root file system of an
# aarch64 guest, made once from Debian's arm64 packages through an apt configuration of its own
# (the host's apt is neither read nor changed), and the name of Debian's arm64 kernel package.
#   prepare_arm64_root   sets arm64_root and arm64_kernel_package; arm64_apt runs apt-get with
#                        the private configuration
# The root holds what pair-guest.sh runs: bash and the tools it calls, iproute2 (ip, rdma, tc,
# ss), rdma-core's libibverbs with its providers (rxe's among them) and tools, and Debian's arm64
# OpenJDK; busybox-static is the initramfs's shell and the guest's ping.

arm64_suite="${OFL_PAIR_ARM64_SUITE:-trixie}"
arm64_packages=(bash coreutils grep sed mawk iproute2 ibverbs-utils ibverbs-providers libibverbs1
                openjdk-25-jre-headless busybox-static)

arm64_apt_dir="$cache/arm64-apt"
# The private configuration: its own sources, lists, cache and (empty) status, arm64 only.
arm64_apt_options=(-o "Dir::Etc::SourceList=$arm64_apt_dir/sources.list" -o Dir::Etc::SourceParts=/dev/null
    -o "Dir::State=$arm64_apt_dir/state" -o "Dir::State::Lists=$arm64_apt_dir/lists"
    -o "Dir::State::Status=$arm64_apt_dir/status" -o "Dir::Cache=$arm64_apt_dir/cache" -o "Dir::Log=$arm64_apt_dir/log"
    -o APT::Architecture=arm64 -o APT::Architectures::=arm64 -o Debug::NoLocking=1 -o APT::Sandbox::User=root)
arm64_apt() { apt-get "${arm64_apt_options[@]}" "$@"; }

prepare_arm64_root() {
    local dir="$arm64_apt_dir" stamp
    # Bump the 2 when the preparation below changes, so that a cached root is made again.
    stamp="$(printf '%s\n' 2 "$arm64_suite" "${arm64_packages[@]}" | md5sum | cut -c1-12)"
    arm64_root="$cache/arm64-root-$stamp"
    if [ ! -f "$arm64_root.ready" ]; then
        say "making the arm64 guest's root file system from Debian $arm64_suite (once)"
        rm -rf "$dir" "$arm64_root"
        mkdir -p "$dir/lists/partial" "$dir/cache/archives/partial" "$dir/state" "$dir/log" "$arm64_root"
        echo "deb [arch=arm64 signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian $arm64_suite main" \
            > "$dir/sources.list"
        : > "$dir/status"
        arm64_apt -qq update >/dev/null || die "apt-get update of Debian $arm64_suite (arm64) failed"
        # With an empty status every dependency is fetched too: the root has nothing else.
        arm64_apt -qq -y install --download-only --no-install-recommends "${arm64_packages[@]}" >/dev/null \
            || die "downloading ${arm64_packages[*]} (arm64, Debian $arm64_suite) failed"
        local deb
        for deb in "$dir"/cache/archives/*.deb; do dpkg-deb -x "$deb" "$arm64_root"; done
        rm -rf "$dir/cache/archives"
        # What the packages' maintainer scripts would have made: awk is an alternative, for mawk.
        ln -sfn mawk "$arm64_root/usr/bin/awk"
        mkdir -p "$arm64_root"/{proc,sys,dev,tmp,root}
        [ -x "$arm64_root/usr/bin/bash" ] && [ -x "$arm64_root/usr/bin/busybox" ] \
            || die "the arm64 root has no bash or busybox"
        # The kernel of the same suite, named once with the root.
        apt-cache "${arm64_apt_options[@]}" depends linux-image-arm64 \
            | sed -n 's/^ *Depends: \(linux-image-[0-9][^ ]*-arm64\)$/\1/p' | head -n1 > "$arm64_root.kernel"
        [ -s "$arm64_root.kernel" ] || die "Debian $arm64_suite (arm64) names no kernel package for linux-image-arm64"
        touch "$arm64_root.ready"
    fi
    # Mount points for init: the checkout and the Maven repository (the class paths name jars
    # there) at their host paths, which differ between checkouts.
    mkdir -p "$arm64_root$repo" "$arm64_root$HOME/.m2"
    arm64_kernel_package="${OFL_PAIR_ARM64_KERNEL_PACKAGE:-$(cat "$arm64_root.kernel")}"
}
