/**
 * apiextensions.k8s.io/v1 ConversionReview: what the API server sends a CRD's conversion webhook,
 * and the answer it expects (every object converted, or a failure naming why). Pure.
 */
import { type ConvertibleObject, convert } from "../apis/conversion.ts";
import { reviewRequest } from "./review-body.ts";

export interface ConversionRequest {
  uid: string;
  desiredAPIVersion: string;
  objects: ConvertibleObject[];
}

export interface ConversionResponse {
  uid: string;
  convertedObjects: ConvertibleObject[];
  result: { status: "Success" | "Failure"; message?: string };
}

export interface ConversionReview {
  apiVersion: "apiextensions.k8s.io/v1";
  kind: "ConversionReview";
  request?: ConversionRequest;
  response?: ConversionResponse;
}

/** The review the API server sent, or why the body is not one. */
export function parseConversionReview(body: string): ConversionRequest | { invalid: string } {
  const request = reviewRequest<ConversionRequest>(body, "apiextensions.k8s.io/v1", "ConversionReview");
  if ("invalid" in request) return request;
  if (typeof request.desiredAPIVersion !== "string" || !Array.isArray(request.objects))
    return { invalid: "the review's request needs desiredAPIVersion and objects" };
  return request;
}

/** The answer to one review: all objects converted, or a Failure naming the first that cannot be. */
export function answerConversion(request: ConversionRequest): ConversionReview {
  const convertedObjects: ConvertibleObject[] = [];
  for (const object of request.objects) {
    const outcome = convert(object, request.desiredAPIVersion);
    if ("refused" in outcome) {
      const name = (object.metadata as { name?: string } | undefined)?.name ?? "";
      return review({
        uid: request.uid,
        convertedObjects: [],
        result: { status: "Failure", message: `${object.kind} ${name}: ${outcome.refused}` },
      });
    }
    convertedObjects.push(outcome.converted);
  }
  return review({ uid: request.uid, convertedObjects, result: { status: "Success" } });
}

const review = (response: ConversionResponse): ConversionReview => ({
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "ConversionReview",
  response,
});
