/**
 * Pushes a tiny image to a real registry through the Docker Registry HTTP API v2 (blob uploads and a
 * manifest PUT), the way Kaniko does at the end of a build. Used where kwok only pretends to run Kaniko.
 */
import { createHash } from "node:crypto";

const sha256 = (data: Buffer | string) => `sha256:${createHash("sha256").update(data).digest("hex")}`;

export async function pushImage(
  registry: string,
  repository: string,
  tag: string,
  credentials?: { username: string; password: string } | { bearer: string },
): Promise<string> {
  const base = `http://${registry}/v2/${repository}`;
  const auth: Record<string, string> = !credentials
    ? {}
    : "bearer" in credentials
      ? { authorization: `Bearer ${credentials.bearer}` }
      : {
          authorization: `Basic ${Buffer.from(`${credentials.username}:${credentials.password}`).toString("base64")}`,
        };
  const upload = async (content: Buffer) => {
    const digest = sha256(content);
    const started = await fetch(`${base}/blobs/uploads/`, { method: "POST", headers: auth });
    if (started.status !== 202) throw new Error(`blob upload start: ${started.status}`);
    const location = new URL(started.headers.get("location") ?? "", `http://${registry}`);
    location.searchParams.set("digest", digest);
    const put = await fetch(location, {
      method: "PUT",
      headers: { ...auth, "content-type": "application/octet-stream" },
      body: new Uint8Array(content),
    });
    if (put.status !== 201) throw new Error(`blob upload: ${put.status} ${await put.text()}`);
    return { digest, size: content.length };
  };
  const config = await upload(
    Buffer.from(
      JSON.stringify({
        architecture: "amd64",
        os: "linux",
        rootfs: { type: "layers", diff_ids: [] },
        config: { Labels: { "dev.slipway.image": `${repository}:${tag}` } },
      }),
    ),
  );
  const layer = await upload(Buffer.from(`layer of ${repository}:${tag}`));
  const manifest = JSON.stringify({
    schemaVersion: 2,
    mediaType: "application/vnd.oci.image.manifest.v1+json",
    config: { mediaType: "application/vnd.oci.image.config.v1+json", ...config },
    layers: [{ mediaType: "application/vnd.oci.image.layer.v1.tar", ...layer }],
  });
  const put = await fetch(`${base}/manifests/${tag}`, {
    method: "PUT",
    headers: { ...auth, "content-type": "application/vnd.oci.image.manifest.v1+json" },
    body: manifest,
  });
  if (put.status !== 201) throw new Error(`manifest put: ${put.status} ${await put.text()}`);
  return sha256(manifest);
}
