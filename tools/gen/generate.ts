/**
 * npm run generate: writes deploy/crds/*, deploy/slipway.yaml and the Helm chart from the kinds
 * (src/apis/index.ts) and the controllers (src/operator/controllers.ts).
 */
import { join } from "node:path";
import { releaseOptions } from "../../src/bundle/release.ts";
import { writeGenerated } from "./write.ts";

const options = releaseOptions();
const { changed, total } = await writeGenerated(join(import.meta.dirname, "../.."), options);
for (const path of changed) console.log(`wrote ${path}`);
console.log(
  `${total} generated files up to date (${options.kinds.length} kinds, ${options.controllers.length} controllers)`,
);
