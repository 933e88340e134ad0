#!/usr/bin/env bash
# Installs what the tests need on a fresh machine (Debian packages), once.
# nginx (with the http_v2 and ssl modules): the HTTP/1.1, HTTP/2 and TLS tests in lb-netty
# start their own nginx processes on 127.0.0.1.
# etcd-server: the etcd tests start their own etcd on 127.0.0.1 with a temporary data directory.
# memcached and nutcracker (twemproxy): lb-core's ketama parity test starts its own on 127.0.0.1.
set -euo pipefail
missing=()
command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || missing+=(nginx)
command -v etcd >/dev/null 2>&1 || [ -x /usr/bin/etcd ] || missing+=(etcd-server)
command -v memcached >/dev/null 2>&1 || [ -x /usr/bin/memcached ] || missing+=(memcached)
command -v nutcracker >/dev/null 2>&1 || [ -x /usr/sbin/nutcracker ] || missing+=(nutcracker)
if [ ${#missing[@]} -gt 0 ]; then
  echo "install-test-deps: apt-get install ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  # The tests run their own servers; the distribution's services are not needed.
  for service in nginx etcd memcached nutcracker; do
    (service "$service" stop || true) >/dev/null 2>&1
  done
fi
