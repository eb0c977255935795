#!/usr/bin/env bash
# The one place that says which interpreter has which framework. `framework-python.sh NAME` prints the path of the
# Python whose environment has framework NAME; hvd's modules come from the build (PYTHONPATH=build/python):
#   torch       Debian's /usr/bin/python3 with python3-torch (1.13) and Debian's numpy
#   torch2      PyPI's torch 2.x, in an environment of its own
#   tensorflow  PyPI's tensorflow-cpu and tf-keras, in an environment of its own (a newer numpy than Debian's)
#   mxnet       PyPI's mxnet 1.9.1, in an environment of its own (numpy 1.23.5: 1.9.1 needs its removed aliases)
# Each environment other than torch is a venv of /usr/bin/python3 holding exactly scripts/framework-envs/NAME.txt,
# made by scripts/install-framework-env.sh NAME under $HVD_ENV_CACHE (default ~/.cache/hvd/envs), outside the work
# tree and keyed by a hash of that file's pins and the interpreter's version: a changed pin makes a new environment.
# `framework-python.sh --env-dir NAME` prints the folder the environment has, or will have, instead.
# Exit: 0 printed; 1 the environment is not installed (the message says the command that installs it); 2 an
# unknown name or bad usage.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
names="torch torch2 tensorflow mxnet"
base_python=/usr/bin/python3

usage() { echo "usage: $0 [--env-dir] NAME   (NAME: ${names// /, })" >&2; exit 2; }

mode=python
if [ "${1:-}" = --env-dir ]; then mode=env-dir; shift; fi
[ $# -eq 1 ] || usage
name=$1
case " $names " in *" $name "*) ;; *)
  echo "framework-python.sh: unknown framework '$name'; known: ${names// /, }" >&2; exit 2 ;;
esac

if [ "$name" = torch ]; then
  [ "$mode" = python ] || { echo "framework-python.sh: torch is Debian's $base_python, not an environment" >&2; exit 2; }
  if ! "$base_python" -c 'import torch' 2>/dev/null; then
    echo "framework-python.sh: $base_python cannot import torch; run scripts/install-deps.sh (python3-torch)" >&2
    exit 1
  fi
  echo "$base_python"
  exit 0
fi

pins=$here/framework-envs/$name.txt
if [ ! -f "$pins" ]; then
  echo "framework-python.sh: hvd has no $name environment yet ($pins is missing)" >&2
  exit 1
fi
# Comments do not count: rewording one makes no new environment.
key=$( { grep -v '^#' "$pins"; "$base_python" -c 'import sys; print(sys.version)'; } | sha256sum | cut -c1-12)
dir=${HVD_ENV_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/hvd/envs}/$name-$key
if [ "$mode" = env-dir ]; then echo "$dir"; exit 0; fi
if [ ! -f "$dir/.complete" ]; then
  echo "framework-python.sh: the $name environment is not installed ($dir); run scripts/install-framework-env.sh $name" >&2
  exit 1
fi
echo "$dir/bin/python"
