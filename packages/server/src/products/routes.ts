import { Type } from 'typebox';
import type { ContextRoutes } from '../http/app-types';
import { actorOf } from '../http/auth';
import { LIST_QUERY_PROPERTIES } from '../http/pagination';
import { list, Name, PrnParams, ResourceFields, single, STANDARD_ERRORS } from '../http/schemas';
import { createProduct, getProduct, listProducts, productToWire, updateProduct } from './service';

const Product = Type.Object({
  ...ResourceFields,
  name: Name('Product name, unique within the organization.'),
  archived: Type.Boolean({ description: 'Archived products keep their history; they cannot be archived while they have unarchived devices.' }),
});

const ProductParams = PrnParams('Resource name of the product.');

export const productRoutes: ContextRoutes = (app, { db }) => {
  app.post('/products', {
    config: { role: 'write' },
    schema: {
      tags: ['products'],
      summary: 'Create a product',
      description: 'A product groups the cohorts and devices of one kind of hardware.',
      body: Type.Object({ name: Name('Product name, unique within the organization.'), archived: Type.Optional(Type.Boolean({ default: false })) }),
      response: { 201: single('product', Product), ...STANDARD_ERRORS },
    },
    handler: async (request, reply) => reply.code(201).send({ product: productToWire(await createProduct(db, actorOf(request), request.body)) }),
  });

  app.get('/products', {
    config: { role: 'read' },
    schema: {
      tags: ['products'],
      summary: 'List products',
      description: 'Search fields: name (`:` `-` `~`), archived (`:`), inserted_at and updated_at (`:` `<` `<=` `>` `>=`).',
      querystring: Type.Object(LIST_QUERY_PROPERTIES),
      response: { 200: list('products', Product), ...STANDARD_ERRORS },
    },
    handler: async (request) => {
      const page = await listProducts(db, actorOf(request), request.query);
      return { products: page.items.map(productToWire), next_page: page.nextPage };
    },
  });

  app.get('/products/:prn', {
    config: { role: 'read' },
    schema: { tags: ['products'], summary: 'Get a product', description: 'One product by its prn.', params: ProductParams, response: { 200: single('product', Product), ...STANDARD_ERRORS } },
    handler: async (request) => ({ product: productToWire(await getProduct(db, actorOf(request), request.params.prn)) }),
  });

  app.patch('/products/:prn', {
    config: { role: 'write' },
    schema: {
      tags: ['products'],
      summary: 'Update a product',
      description: 'Rename or archive a product. Archiving answers 409 `product_has_active_devices` while unarchived devices remain, and 409 `product_has_firmware` while legacy firmware of the product remains.',
      params: ProductParams,
      body: Type.Object({ name: Type.Optional(Name()), archived: Type.Optional(Type.Boolean()) }),
      response: { 200: single('product', Product), ...STANDARD_ERRORS },
    },
    handler: async (request) => ({ product: productToWire(await updateProduct(db, actorOf(request), request.params.prn, request.body)) }),
  });
};
