// Kenyan first and family names for seeded contacts and customers (bench/contacts-page.mjs,
// bench/inbox.mjs): 40 first names and 50 family names, 2,000 full names in all.
export const FIRST_NAMES =
  "Amina Baraka Chebet Daudi Esther Faith Grace Hassan Imani Jabari Kamau Lillian Mary Njeri Otieno Pendo Rehema Saida Tumaini Wanjiru Zawadi Achieng Brian Collins Dennis Edwin Fatuma Gift Halima Ivy Joy Kevin Lucy Mercy Nafula Onyango Peter Ruth Said Wairimu".split(
    " ",
  );
export const FAMILY_NAMES =
  "Mwangi Otieno Wanjiku Kamau Ochieng Njoroge Kiprop Wekesa Mutua Kariuki Omondi Chebet Kipkemboi Waweru Macharia Akinyi Nyambura Odhiambo Barasa Cherono Kimani Koech Mbugua Muriuki Ndungu Ngugi Nyaga Oduor Okoth Onyango Rotich Ruto Sang Wafula Wambui Wairimu Juma Hassan Ali Abdi Mohamed Musyoka Mulwa Kilonzo Nzioka Kyalo Mutiso Mwende Ndunge Katana".split(
    " ",
  );
