// The product's name, in one place for the pages, the mails and the API documentation.
// OPERATOR: the spec does not name the product; set your brand here (the Open Graph image in
// public/og-image.jpg carries it too, so replace that with it).
export const PRODUCT_NAME = "GenAI Studio";
