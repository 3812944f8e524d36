/** The field manager the operator's controllers apply as (a dry run of an update applies as it too). */
export const operatorFieldManager = "slipway-operator";
