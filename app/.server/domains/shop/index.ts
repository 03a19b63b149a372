/**
 * The shop domain's public entry (decision 138): products mirrored into Meta's catalog, the product
 * messages agents send, and the orders customers send back.
 */
export { catalogIdOf, runProductSync, SHOP_RECONCILE_QUEUE } from "./catalog";
export {
  queueBatchSync,
  readBatchOutcome,
  reconcileCatalog,
  sendProductBatch,
  SHOP_BATCH_QUEUE,
  SHOP_BATCH_STATUS_QUEUE,
} from "./catalog-batch";
export {
  cartsOfMessages,
  getOrder,
  listOrders,
  orderCounts,
  orderTotal,
  ORDERS_PAGE,
  readCart,
  recordInboundOrders,
  setOrderStatus,
} from "./orders";
export type { InboundOrder, NewOrder, OrderFilter, OrderLine, OrderView } from "./orders";
export {
  checkProductChoice,
  PICKER_SHOWN,
  pickerProducts,
  PRODUCT_LIST_MAX,
  PRODUCT_MESSAGE_KINDS,
  productMessage,
  productMessageIfSendable,
  sendableByIds,
  sendableProducts,
} from "./product-messages";
export type { ProductMessageKind, ProductMessageRequest } from "./product-messages";
export {
  createProduct,
  getProduct,
  listProducts,
  PRODUCTS_MAX,
  queueProductSync,
  refuseShop,
  removeProduct,
  requireProduct,
  SHOP_SYNC_QUEUE,
  updateProduct,
} from "./products";
export type { Product, ProductChange, ShopActor } from "./products";
export { productImageUrl, publicProductImage, readProductImage } from "./images";
export { importProducts, PRODUCT_IMPORT_FIELD, PRODUCT_IMPORT_MAX_BYTES, PRODUCT_IMPORT_MAX_ROWS } from "./import";
export type { ImportOutcome } from "./import";
export { requestOrderPayment, settleOrderOfRequest } from "./order-payment";
export { saveSourcedProducts } from "./sourced";
export type { SourcedOutcome, SourcedProduct } from "./sourced";
