// Package prices owns the price catalogs: the YAML format for DIMMs, storage
// devices and platforms, their validation, currency conversion, and the
// catalogs embedded in the binary (a 2009 catalog for reproducing the Intel IT
// EDA study and a current one), with the drive that stands for each factor
// class (CatalogClasses). It prices parts; it does not decide which
// configuration wins (that is package model).
package prices
