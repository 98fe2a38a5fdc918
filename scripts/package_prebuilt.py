"""Packages a SAM template for `sam deploy` without `sam build`: the binary
of each function (its `Metadata.BuildProperties.Binary`, as cargo built it
into TARGET_DIR) is zipped as an executable `bootstrap`, uploaded to
s3://BUCKET (once per binary) with the AWS CLI, and the function's
`CodeUri: .` is replaced by that object's s3:// URI. Used by
scripts/deploy-e2e.sh --whole-template, which deploys template.yaml with the
release binaries the tests already built (scripts/test.sh).

    python3 scripts/package_prebuilt.py TEMPLATE TARGET_DIR BUCKET OUT AWS_CLI
"""
import hashlib
import io
import os
import re
import subprocess
import sys
import zipfile


def zipped(path):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as z:
        info = zipfile.ZipInfo("bootstrap")
        info.external_attr = 0o100755 << 16  # a Unix file, rwxr-xr-x
        info.compress_type = zipfile.ZIP_DEFLATED
        with open(path, "rb") as f:
            z.writestr(info, f.read())
    return buf.getvalue()


def main(template, target, bucket, out, aws):
    binary = None
    keys = {}
    lines = []
    with open(template) as f:
        for line in f.read().split("\n"):
            m = re.match(r"\s+Binary:\s*(\S+)\s*$", line)
            if m:
                binary = m.group(1)
            m = re.match(r"(\s+)CodeUri:\s*\.\s*$", line)
            if m and binary:
                if binary not in keys:
                    data = zipped(os.path.join(target, binary))
                    key = hashlib.md5(data).hexdigest() + ".zip"
                    local = os.path.join(os.path.dirname(os.path.abspath(out)), key)
                    with open(local, "wb") as z:
                        z.write(data)
                    subprocess.run([aws, "s3", "cp", "--quiet", local, f"s3://{bucket}/{key}"], check=True)
                    keys[binary] = key
                line = f"{m.group(1)}CodeUri: s3://{bucket}/{keys[binary]}"
                binary = None
            lines.append(line)
    with open(out, "w") as f:
        f.write("\n".join(lines))
    print(f"packaged {len(keys)} binaries into s3://{bucket}", file=sys.stderr)


if __name__ == "__main__":
    main(*sys.argv[1:6])
