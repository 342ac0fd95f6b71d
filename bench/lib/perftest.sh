# Shell helper of the micro-VM benchmark scripts (sourced inside the VM).

# perftest_pair <binary> <args...>: one perftest measurement against the device's own
# address: the server in the background, the client retried (every 0.5 s, up to 10
# times) while the server is not yet listening. Uses $dev, $addr, the array conn
# (-x <GID index> on rxe, -R on siw), the variable port (a new port per pair) and,
# when set, the array perftest_env (VAR=value words for both sides, e.g. an
# LD_PRELOAD). Prints the client's output, then "# <binary> client exit <status>;
# server output:" and the server's output with "#   " before each line. Returns the
# client's exit status.
perftest_pair() {
  local bin=$1 out rc=1 try server server_out
  shift
  port=$((port + 1))
  server_out=$(mktemp)
  timeout -k 5 180 env "${perftest_env[@]}" "$bin" -d "$dev" "${conn[@]}" -p "$port" "$@" >"$server_out" 2>&1 &
  server=$!
  for try in 1 2 3 4 5 6 7 8 9 10; do
    sleep 0.5
    out=$(timeout -k 5 180 env "${perftest_env[@]}" "$bin" -d "$dev" "${conn[@]}" -p "$port" "$@" "$addr" 2>&1)
    rc=$?
    ((rc == 0)) && break
    kill -0 "$server" 2>/dev/null || break
  done
  wait "$server" 2>/dev/null
  printf '%s\n' "$out"
  echo "# $bin client exit $rc; server output:"
  sed 's/^/#   /' "$server_out"
  rm -f "$server_out"
  return "$rc"
}
