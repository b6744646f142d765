# Sourced by run.sh and pair.sh (which define say, die, here and cache): a guest's kernel, from a
# Debian package unpacked once per version, and its busybox initramfs with the modules below.
#   prepare_kernel amd64   the host's Debian kernel (linux-image-amd64's, or OFL_RXE_KERNEL_PACKAGE)
#                          and the host's static busybox
#   prepare_kernel arm64   Debian's arm64 kernel and static busybox, from the arm64 packages that
#                          arm64.sh fetched (call prepare_arm64_root first)
# Sets kdir (vmlinuz and initramfs.cpio.gz in it) and kernel_version.

# The modules the guest needs; their dependencies come from each module's own "depends=". rdma_rxe
# asks the crypto API for "crc32" (its ICRC) when a device is added, a soft dependency its
# "depends=" does not name, and the guest has no modprobe that could load it on demand. A module
# the kernel has built in is skipped. virtio_net is for the two-guest run (pair.sh).
modules=(virtio_pci 9pnet_virtio 9p crc32_generic rdma_rxe veth sch_netem virtio_net)

prepare_kernel() {
    local arch="$1" kernel_package
    if [ "$arch" = amd64 ]; then
        kernel_package="${OFL_RXE_KERNEL_PACKAGE:-}"
        if [ -z "$kernel_package" ]; then
            kernel_package="$(apt-cache depends linux-image-amd64 2>/dev/null \
                | sed -n 's/^ *Depends: \(linux-image-[0-9][^ ]*-amd64\)$/\1/p' | head -n1)"
            [ -n "$kernel_package" ] \
                || die "apt-cache depends linux-image-amd64 names no kernel package; run apt-get update or set OFL_RXE_KERNEL_PACKAGE"
        fi
    else
        kernel_package="$arm64_kernel_package"
    fi
    kernel_version="${kernel_package#linux-image-}"
    kdir="$cache/$kernel_version"
    if [ -f "$kdir/initramfs.cpio.gz" ] && [ ! "$here/init" -nt "$kdir/initramfs.cpio.gz" ] \
        && [ ! "$here/kernel.sh" -nt "$kdir/initramfs.cpio.gz" ]; then
        return 0
    fi
    say "preparing the guest kernel $kernel_package in $kdir"
    rm -rf "$kdir"
    mkdir -p "$kdir/deb"
    local busybox
    if [ "$arch" = amd64 ]; then
        (cd "$kdir/deb" && apt-get download "$kernel_package" >/dev/null 2>&1) \
            || die "apt-get download $kernel_package failed; run apt-get update, or set OFL_RXE_KERNEL_PACKAGE to a linux-image-6.1.0-*-amd64 package that apt-cache policy shows"
        busybox=/bin/busybox
        [[ "$(ldd "$busybox" 2>&1 || true)" == *"not a dynamic"* ]] || die "$busybox is not static; install busybox-static"
    else
        (cd "$kdir/deb" && arm64_apt download "$kernel_package" >/dev/null 2>&1) \
            || die "downloading $kernel_package (arm64) failed"
        busybox="$arm64_root/usr/bin/busybox"
        [ -f "$busybox" ] || die "no static busybox in $arm64_root (busybox-static, arm64)"
    fi
    dpkg-deb -x "$kdir"/deb/*.deb "$kdir/root"
    local mods
    mods="$(find "$kdir/root" -maxdepth 4 -type d -path "*/lib/modules/$kernel_version" | head -n1)"
    [ -n "$mods" ] || die "$kernel_package has no lib/modules/$kernel_version"
    cp "$kdir/root/boot/vmlinuz-$kernel_version" "$kdir/vmlinuz"

    # Load order: every module after those its "depends=" names, each once. Modules may be
    # xz-compressed (.ko.xz); the initramfs gets them uncompressed, for busybox's insmod.
    local -A seen=()
    local order=()
    visit() {
        local name="$1" path dep
        [ -n "${seen[$name]:-}" ] && return 0
        seen[$name]=1
        if grep -qE "/$name\.ko$" "$mods/modules.builtin" 2>/dev/null; then
            return 0
        fi
        path="$(find "$mods/kernel" -name "$name.ko" -o -name "$name.ko.xz" | head -n1)"
        [ -n "$path" ] || path="$(find "$mods/kernel" -name "${name//_/-}.ko" -o -name "${name//_/-}.ko.xz" | head -n1)"
        [ -n "$path" ] || die "module $name is neither built into nor shipped with $kernel_package"
        local deps
        deps="$(module_text "$path" | grep -a -o 'depends=[^[:cntrl:]]*' | head -n1)"
        deps="${deps#depends=}"
        for dep in ${deps//,/ }; do visit "$dep"; done
        order+=("$path")
    }
    local m
    for m in "${modules[@]}"; do visit "$m"; done

    local initramfs="$kdir/initramfs" path name
    mkdir -p "$initramfs/bin" "$initramfs/modules"
    cp "$busybox" "$initramfs/bin/busybox"
    cp "$here/init" "$initramfs/init"
    chmod 755 "$initramfs/init"
    : > "$initramfs/modules.list"
    for path in "${order[@]}"; do
        name="$(basename "$path" .xz)"
        module_text "$path" > "$initramfs/modules/$name"
        echo "$name" >> "$initramfs/modules.list"
    done
    (cd "$initramfs" && find . | busybox cpio -o -H newc 2>/dev/null | gzip -1 > "$kdir/initramfs.cpio.gz.tmp")
    mv "$kdir/initramfs.cpio.gz.tmp" "$kdir/initramfs.cpio.gz"
    rm -rf "$kdir/deb" "$kdir/root"
    say "guest kernel ready: $(tr '\n' ' ' < "$initramfs/modules.list")"
}

# A module's bytes, uncompressed.
module_text() {
    case "$1" in
    *.xz) xz -dc "$1" ;;
    *) cat "$1" ;;
    esac
}
