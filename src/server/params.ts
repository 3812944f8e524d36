/** Path parameter schemas shared by the API's namespaced resource routes. */
import { Type } from "@sinclair/typebox";

/** A namespace name (a DNS label). */
export const Namespace = Type.String({ pattern: "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$", maxLength: 63 });
/** An object name (a DNS subdomain). */
export const Name = Type.String({ pattern: "^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$", maxLength: 253 });
export const NamespaceParams = Type.Object({ namespace: Namespace });
export const ObjectParams = Type.Object({ namespace: Namespace, name: Name });
