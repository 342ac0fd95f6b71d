# Sourced by the benchmark scripts that build third-party programs from the upstream
# tarballs Debian ships (bench/mpich_tests.sh, bench/real_programs.sh).
#
#   debian_orig_tarball PACKAGE FILE SHA256
#
# Puts FILE (the package's upstream tarball, e.g. mpich_4.0.2.orig.tar.xz) in the current
# directory, fetched the way this machine's apt is configured (its mirrors, proxies and
# authentication: no host name in this repository), and checks it against SHA256.
# `apt-get source` needs deb-src entries; they are derived from the configured deb
# entries (/etc/apt/sources.list and sources.list.d/*.list, *.sources) into a private
# apt state under a temporary directory, so the system's apt configuration and package
# lists are left as they were. Returns non-zero with a message naming what failed.
debian_orig_tarball() {
  local package=$1 file=$2 sum=$3 apt_dir opts f rc=0
  apt_dir=$(mktemp -d "${TMPDIR:-/tmp}/twinfab-apt.XXXXXX")
  mkdir -p "$apt_dir/sources" "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial"
  # deb822 files: a stanza of Types: deb gets deb-src (a deb-src stanza is kept).
  for f in /etc/apt/sources.list.d/*.sources; do
    [[ -f $f ]] && sed -E 's/^Types:.*\bdeb\b.*$/Types: deb-src/' "$f" > "$apt_dir/sources/$(basename "$f")"
  done
  # One-line files: every "deb" line also as "deb-src".
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [[ -f $f ]] && sed -nE 's/^[[:space:]]*deb([[:space:]])/deb-src\1/p' "$f" > "$apt_dir/sources/$(basename "$f").list"
  done
  opts=(-o Dir::Etc::SourceList=/dev/null -o "Dir::Etc::SourceParts=$apt_dir/sources"
        -o "Dir::State::Lists=$apt_dir/lists" -o "Dir::Cache=$apt_dir/cache" -o APT::Sandbox::User=root -qq)
  if ! apt-get "${opts[@]}" update > "$apt_dir/update.log" 2>&1; then
    echo "debian_orig_tarball: apt-get update of the deb-src entries derived from /etc/apt failed:" >&2
    tail -5 "$apt_dir/update.log" >&2
    rm -rf "$apt_dir"
    return 1
  fi
  # Only the upstream tarball is needed: a mirror that lacks the Debian patch tarball
  # makes apt-get source fail after fetching it, which the checksum then settles.
  apt-get "${opts[@]}" source --download-only "$package" > "$apt_dir/source.log" 2>&1 || rc=$?
  if [[ ! -f $file ]]; then
    echo "debian_orig_tarball: apt-get source $package did not fetch $file (exit $rc):" >&2
    tail -5 "$apt_dir/source.log" >&2
    rm -rf "$apt_dir"
    return 1
  fi
  rm -rf "$apt_dir"
  echo "$sum  $file" | sha256sum -c --quiet - ||
    { echo "debian_orig_tarball: $file does not match its checksum (another upstream version?)" >&2; return 1; }
}
