export * from './form-schema.js';
export { defineForm, buildForm, isFormDefinition, type FormDefinition, type FormOptions } from './define-form.js';
export { FormField, formFromClass, type FormFieldOptions } from './form-decorators.js';
export { lintFormSchema, looksSecret, type LintOptions } from './form-lint.js';
export { compileValidator, type ValidationResult } from './form-validator.js';
