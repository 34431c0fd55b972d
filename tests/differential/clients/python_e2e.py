"""Run some of the official Python client's own end-to-end tests against the cluster in KUBECONFIG.

Usage: python_e2e.py TEST... (dotted names under the installed `kubernetes` package, e.g.
dynamic.test_discovery).

The client's wheel ships its dynamic-client tests (kubernetes/dynamic/test_*.py) but not the
`kubernetes.e2e_test.base` helper they import; its one function they use,
`get_e2e_configuration`, is given here as the client's repository defines it: the configuration
the kubeconfig describes. Each test's outcome is printed on one line, with the last line of its
failure, so two clusters' runs compare.
"""

import re
import sys
import types
import unittest

from kubernetes import client, config


def get_e2e_configuration():
    configuration = client.Configuration()
    config.load_kube_config(client_configuration=configuration)
    return configuration


base = types.ModuleType("kubernetes.e2e_test.base")
base.get_e2e_configuration = get_e2e_configuration
package = types.ModuleType("kubernetes.e2e_test")
package.base = base
sys.modules["kubernetes.e2e_test"] = package
sys.modules["kubernetes.e2e_test.base"] = base


class Outcomes(unittest.TestResult):
    def __init__(self):
        super().__init__()
        self.lines = []

    def record(self, test, verdict, err=None):
        line = f"{test.id()}: {verdict}"
        if err is not None:
            last = self._exc_info_to_string(err, test).strip().splitlines()[-1]
            # The tests name their objects with a random 12-digit suffix.
            line += " - " + re.sub(r"\b[0-9a-f]{12}\b", "<id>", last)
        self.lines.append(line)

    def addSuccess(self, test):
        self.record(test, "ok")

    def addFailure(self, test, err):
        self.record(test, "FAIL", err)

    def addError(self, test, err):
        self.record(test, "ERROR", err)

    def addSkip(self, test, reason):
        self.lines.append(f"{test.id()}: skipped - {reason}")


def main(names):
    suite = unittest.defaultTestLoader.loadTestsFromNames(["kubernetes." + n for n in names])
    outcomes = Outcomes()
    suite.run(outcomes)
    for line in outcomes.lines:
        print(line)
    return 0 if outcomes.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
