/** Why a Pipeline cannot be expressed in KFP's IR: the field (`spec.steps[2].dependsOn`) and the rule. */
export class CompileError extends Error {
  override name = "CompileError";
  readonly field: string;
  constructor(field: string, rule: string) {
    super(`${field}: ${rule}`);
    this.field = field;
  }
}
