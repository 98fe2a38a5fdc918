"""Puts what LocalStack downloads at first use where its installers look.

    python preinstall.py SRC          # Java, DynamoDB Local and its agent, from SRC
    python preinstall.py --init FILE  # our Lambda init (localstack/init), then --check
    python preinstall.py --check      # report; fail unless everything is installed

SRC holds `dynamodb-local/` (DynamoDBLocal.jar and DynamoDBLocal_lib/, from
the npm package amplify-dynamodb-simulator) and `ddb-agent.jar` (a no-op Java
agent); Java is Debian's openjdk-21-jre-headless. The image build runs the
first two (localstack/image/localstack.Dockerfile, localstack/build.sh).

The paths are asked of LocalStack's own installers (`localstack.packages`),
not spelt here, so another LocalStack version keeps working or fails the
image build with the package that is missing. Each package counts as
installed when its marker file exists under the static libs target
(`/usr/lib/localstack` in a container); LocalStack then never downloads it.
"""

import glob
import os
import shutil
import sys

from localstack import config
from localstack.packages import InstallTarget
from localstack.packages.java import java_package
from localstack.services.dynamodb.packages import dynamodblocal_package
from localstack.services.lambda_.packages import lambda_runtime_package

TARGET = InstallTarget.STATIC_LIBS


def install_dir(installer):
    return installer._get_install_dir(TARGET)


def marker(installer):
    return installer._get_install_marker_path(install_dir(installer))


def java_home():
    """Debian's Java 21 (openjdk-21-jre-headless)."""
    homes = sorted(glob.glob("/usr/lib/jvm/java-21-openjdk-*"))
    if not homes:
        sys.exit("preinstall: no /usr/lib/jvm/java-21-openjdk-* (openjdk-21-jre-headless)")
    return homes[0]


def java_installers():
    """The Java LocalStack starts DynamoDB Local with (its installer's `java_version`)."""
    version = getattr(dynamodblocal_package.get_installer(), "java_version", None)
    if not version:
        sys.exit("preinstall: DynamoDB Local's installer names no java_version (another LocalStack?)")
    return [java_package.get_installer(str(version))]


def install_init(file):
    """LocalStack copies <install dir>/. into each Lambda container (/var/rapid/init)."""
    init = lambda_runtime_package.get_installer()
    path = marker(init)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    shutil.copyfile(file, path)
    os.chmod(path, 0o755)


def install(src):
    # Java: each version's directory is Debian's JAVA_HOME (bin/java is the marker).
    for installer in java_installers():
        directory = install_dir(installer)
        os.makedirs(os.path.dirname(directory), exist_ok=True)
        if not os.path.lexists(directory):
            os.symlink(java_home(), directory)

    # DynamoDB Local, and the agent LocalStack passes as -javaagent.
    ddb = dynamodblocal_package.get_installer()
    directory = install_dir(ddb)
    shutil.copytree(os.path.join(src, "dynamodb-local"), directory, dirs_exist_ok=True)
    agent = ddb.get_ddb_agent_jar_path()
    os.makedirs(os.path.dirname(agent), exist_ok=True)
    shutil.copyfile(os.path.join(src, "ddb-agent.jar"), agent)


def check(init=True):
    print(f"preinstall: static libs {config.dirs.static_libs}, var libs {config.dirs.var_libs}")
    installers = [dynamodblocal_package.get_installer(), *java_installers()]
    if init:
        installers.insert(0, lambda_runtime_package.get_installer())
    missing = []
    for installer in installers:
        ok = installer.is_installed()
        where = installer.get_installed_dir() if ok else marker(installer)
        print(f"preinstall: {installer.name} {installer.version}: {'installed' if ok else 'MISSING'} ({where})")
        if not ok:
            missing.append(installer.name)
    agent = dynamodblocal_package.get_installer().get_ddb_agent_jar_path()
    if not os.path.isfile(agent):
        print(f"preinstall: DynamoDB Local's agent MISSING ({agent})")
        missing.append("ddb-agent")
    if missing:
        sys.exit(f"preinstall: not installed: {', '.join(missing)}")


if __name__ == "__main__":
    args = sys.argv[1:]
    if args == ["--check"]:
        check()
    elif len(args) == 2 and args[0] == "--init":
        install_init(args[1])
        check()
    elif len(args) == 1 and not args[0].startswith("-"):
        install(args[0])
        check(init=False)
    else:
        sys.exit(__doc__)
