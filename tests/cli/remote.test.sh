#!/bin/sh
# slow: starts nginx and an S3 stand-in, writes about 60 MiB of files and reads them over HTTP
# remote.test.sh - tshape on URLs (http://, https://, hf://, s3://) against a real
# nginx and an S3 stand-in started by tests/remote_check.py: every remote report
# equals the local one, requests and bytes per format, errors, TLS, the Hub, S3
# SigV4, retries.
cd "$(dirname "$0")/../.." || exit 2
bin=${TSHAPE:-$(command -v tshape)}
exec /usr/bin/python3 tests/remote_check.py "$bin"
