import { readFile } from "node:fs/promises";
import type { Command } from "commander";
import { compilePipeline, irJson, irYaml } from "../pipelines/kfp/compile.ts";
import { readPipelineDocument } from "../pipelines/kfp/document.ts";
import { UserError } from "./run.ts";

interface CompileFlags {
  backend: string;
  output: string;
  pipelineRoot?: string;
}

const backends = ["kfp", "vertex"];
const formats = ["json", "yaml"];

function checkFlags(flags: CompileFlags): void {
  if (!backends.includes(flags.backend))
    throw new UserError(`--backend must be one of ${backends.join(", ")}, not ${flags.backend}`);
  if (!formats.includes(flags.output))
    throw new UserError(`-o must be one of ${formats.join(", ")}, not ${flags.output}`);
  // Vertex AI keeps a pipeline's outputs in Cloud Storage only.
  if (flags.backend === "vertex" && flags.pipelineRoot && !flags.pipelineRoot.startsWith("gs://"))
    throw new UserError(`--pipeline-root: Vertex AI needs a gs:// location, not ${flags.pipelineRoot}`);
}

async function compileFile(file: string, flags: CompileFlags): Promise<string> {
  checkFlags(flags);
  const text = await readFile(file, "utf8").catch((error: NodeJS.ErrnoException) => {
    throw new UserError(`${file}: ${error.code === "ENOENT" ? "no such file" : error.message}`);
  });
  const read = readPipelineDocument(text);
  if (!read.ok) throw new UserError(`${file}: ${read.error}`);
  const compiled = compilePipeline({ ...read.pipeline, pipelineRoot: flags.pipelineRoot });
  if (!compiled.ok) throw new UserError(`${file}: ${compiled.error}`);
  return flags.output === "yaml" ? irYaml(compiled.ir) : irJson(compiled.ir);
}

/** `slipway pipelines …`: what a Pipeline becomes on a backend. */
export function registerPipelinesCommands(program: Command): void {
  const pipelines = program.command("pipelines").description("pipeline resources and their backends");
  pipelines
    .command("compile <file>")
    .description("print the KFP pipeline spec (IR) that the Pipeline in FILE (YAML or JSON) compiles to")
    .option("--backend <backend>", "kfp or vertex (Vertex AI runs the same IR)", "kfp")
    .option("-o, --output <format>", "json or yaml", "json")
    .option("--pipeline-root <uri>", "the IR's defaultPipelineRoot (vertex: gs://…)")
    .action(async (file: string, flags: CompileFlags) => {
      process.stdout.write(await compileFile(file, flags));
    });
}
