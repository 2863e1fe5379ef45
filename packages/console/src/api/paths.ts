/**
 * The admin API's shapes, derived from the SDK's generated OpenAPI types (`AdminApiPaths`), so the
 * console's types follow the server's routes instead of being written by hand. Types only: this
 * module adds nothing to the bundle.
 */
import type { AdminApiPaths } from '@canopy/sdk/browser';

export type Paths = AdminApiPaths;
export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** The paths that have an operation for `M` (generated paths mark the others `M?: never`). */
export type PathWith<M extends Method> = { [P in keyof Paths]: Paths[P] extends { [K in M]: { responses: unknown } } ? P : never }[keyof Paths];

type Operation<P extends keyof Paths, M extends Method> = Paths[P] extends { [K in M]: infer O } ? O : never;
type Json<R> = R extends { content: { 'application/json': infer J } } ? J : undefined;
type Success<Responses> = Responses extends { 200: infer R } ? Json<R> : Responses extends { 201: infer R } ? Json<R> : undefined;

/** The JSON body of a successful `M P`. */
export type AnswerOf<P extends PathWith<M>, M extends Method = 'get'> = Success<Operation<P, M> extends { responses: infer R } ? R : never>;
/** The JSON request body of `M P`. */
export type BodyOf<P extends PathWith<M>, M extends Method> = Operation<P, M> extends { requestBody?: { content: { 'application/json': infer B } } } ? B : never;
/** The query parameters of `GET P`. */
export type QueryOf<P extends PathWith<'get'>> = NonNullable<Operation<P, 'get'> extends { parameters: { query?: infer Q } } ? Q : never>;
/** The path parameters of `M P` (`{prn}`). */
export type PathParamsOf<P extends PathWith<M>, M extends Method = 'get'> = Operation<P, M> extends { parameters: { path: infer Q } } ? Q : never;

/** The list endpoints: GET paths answered with a page (`next_page` and one array of items). */
export type ListPath = { [P in PathWith<'get'>]: AnswerOf<P> extends { next_page: string | null } ? P : never }[PathWith<'get'>];
/** The page keys of `P` that hold its items (`products` in GET /products's answer). */
export type ItemsKey<P extends ListPath> = { [K in keyof AnswerOf<P>]: AnswerOf<P>[K] extends readonly unknown[] ? K : never }[keyof AnswerOf<P>];
/** One item of list `P`: `ListItem<'/devices'>` is a device as the API answers it. */
export type ListItem<P extends ListPath, K extends ItemsKey<P> = ItemsKey<P>> = AnswerOf<P>[K] extends readonly (infer I)[] ? I : never;
/** The resources deleted by prn alone: `DELETE /products/{prn}`. */
export type DeleteByPrnPath = { [P in PathWith<'delete'>]: keyof PathParamsOf<P, 'delete'> extends 'prn' ? P : never }[PathWith<'delete'>];
/** One DELETE with its path parameters, checked together: `{ path: '/products/{prn}', params: { prn } }`. */
export type DeleteTarget = { [P in PathWith<'delete'>]: { path: P; params: PathParamsOf<P, 'delete'> } }[PathWith<'delete'>];
