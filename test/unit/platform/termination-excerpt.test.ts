import { describe, expect, it } from "vitest";
import {
  excerptLimits,
  maskCredentials,
  terminationExcerpt,
} from "../../../src/platform/termination-excerpt.ts";

/** The end of mlflow 3.17.2's log when MLFLOW_BACKEND_STORE_URI has an unknown scheme (a real run). */
const mlflowBadScheme = [
  "KeyError: 'nosuchscheme'",
  "",
  "During handling of the above exception, another exception occurred:",
  "",
  "Traceback (most recent call last):",
  '  File "/usr/lib/python3/dist-packages/mlflow/cli/__init__.py", line 709, in server',
  "    initialize_backend_stores(",
  '  File "/usr/lib/python3/dist-packages/mlflow/tracking/registry.py", line 83, in get_store_builder',
  "    raise UnsupportedModelRegistryStoreURIException(",
  "              ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^",
  "mlflow.tracking.registry.UnsupportedModelRegistryStoreURIException:  Model registry functionality is " +
    "unavailable; got unsupported URI 'nosuchscheme://nowhere' for model registry data storage. Supported " +
    "URI schemes are: ['', 'file', 'postgresql', 'mysql', 'sqlite', 'mssql', 'databricks']. See " +
    "https://www.mlflow.org/docs/latest/tracking.html#storage for how to run an MLflow server against one " +
    "of the supported backend storage locations.",
  "",
].join("\n");

describe("terminationExcerpt", () => {
  it("keeps the value a long last error line names (the end of the log, each line cut at its end)", () => {
    const excerpt = terminationExcerpt(mlflowBadScheme);
    expect(excerpt).toContain("got unsupported URI 'nosuchscheme://nowhere'");
    expect(excerpt.startsWith('File "/usr/lib/python3/dist-packages/mlflow/tracking/registry.py"')).toBe(
      true,
    );
    expect(excerpt).not.toContain("^^^");
    const lines = excerpt.split(" | ");
    expect(lines).toHaveLength(excerptLimits.lines);
    expect(lines.at(-1)).toMatch(
      /^mlflow\.tracking\.registry\.UnsupportedModelRegistryStoreURIException: .*…$/,
    );
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(excerptLimits.lineLength);
  });

  it("is bounded whatever the log holds", () => {
    const flood = Array.from({ length: 80 }, () => "x".repeat(2048)).join("\n");
    const bound = (excerptLimits.lines + 2) * (excerptLimits.lineLength + 3);
    expect(terminationExcerpt(flood).length).toBeLessThan(bound);
  });

  it("keeps an error in front when only shutdown chatter follows it", () => {
    const log = [
      "starting",
      "Error: listen tcp :9000: bind: address already in use",
      "closing",
      "bye",
      "exit",
    ];
    expect(terminationExcerpt(log.join("\n"))).toBe(
      "Error: listen tcp :9000: bind: address already in use | … | closing | bye | exit",
    );
  });

  it("is empty for an empty or blank message", () => {
    expect(terminationExcerpt(undefined)).toBe("");
    expect(terminationExcerpt("\n  \n")).toBe("");
  });

  it("masks credentials before cutting, so no part of a secret is left", () => {
    const secret = "0f3c9d2e8b7a6f5e4d3c2b1a09f8e7d6";
    const line = `${"y".repeat(excerptLimits.lineLength - 30)} POSTGRES_PASSWORD=${secret} more`;
    const excerpt = terminationExcerpt(line);
    expect(excerpt).not.toContain(secret.slice(0, 8));
    expect(excerpt).toContain("POSTGRES_PASSWORD=***");
  });
});

describe("maskCredentials", () => {
  it.each([
    ["bad URL postgresql://slipway:s3cret@db:5432/x", "bad URL postgresql://slipway:***@db:5432/x"],
    ["Authorization: Bearer eyJhbGciOi.payload.sig", "Authorization: Bearer ***"],
    ["AWS_SECRET_ACCESS_KEY=abc123 region=us", "AWS_SECRET_ACCESS_KEY=***"],
    ['config {"password": "hunter2", "user": "x"}', 'config {"password": "***", "user": "x"}'],
    ["token: abc.def", "token: ***"],
  ])("%s", (line, masked) => {
    expect(maskCredentials(line).startsWith(masked)).toBe(true);
    expect(maskCredentials(line)).not.toMatch(/s3cret|eyJ|abc123|hunter2|abc\.def/);
  });

  it("leaves what names no credential alone", () => {
    const line = "KeyError: 'nosuchscheme' | password authentication failed for user \"slipway\"";
    expect(maskCredentials(line)).toBe(line);
  });
});
